import type { EmbeddedMongoOptions } from './embedded-mongo-server';

/** The CLI usage line, printed with argument errors. */
const USAGE =
  'usage: node dist/cli.js [--port N] [--host H] [--data-dir DIR] [--sync normal|full] [--ttl-interval-ms N] [--repl-set NAME] [--help]';

/** What `--help` prints: the usage, what the server is, each option, and how it reports. */
export const HELP = `${USAGE}

Runs the embedded MongoDB: a MongoDB-wire-protocol server in TypeScript that implements the commands
sas uses, for the demo, local runs and the tests; never for production. Without --data-dir it
keeps everything in memory and a restart loses every document. With --data-dir it keeps its state
in DIR/embedded-mongo.sqlite (Node's built-in SQLite, WAL mode), commits each command there before
replying, and reads it back on start, so a restart (even after kill -9) keeps every acknowledged
write. Connect with directConnection=true.

Options:
  --port N             TCP port to listen on; 0 (default) picks a free one
  --host H             address to listen on (default 127.0.0.1)
  --data-dir DIR       keep the state in DIR/embedded-mongo.sqlite (created if missing); DIR is held
                       exclusively: a second server on it is refused while this one runs
  --sync normal|full   with --data-dir: normal (default) survives a crash of this process, full also
                       a power loss or OS crash, at the cost of an fsync per write (MongoDB's j:true)
  --ttl-interval-ms N  how often TTL indexes remove expired documents (default 1000)
  --repl-set NAME      answer as a one-member replica set of this name (for clients that need one)
  --help, -h           print this help and exit

When ready it prints one JSON line to stdout, {"event":"listening","url":"mongodb://...","port":N};
further log lines go to stderr as JSON (EMBEDDED_MONGO_DEBUG=1 adds debug lines). SIGTERM or
SIGINT closes it and exits 0.`;

/** Whether the arguments ask for the help (`--help` or `-h` anywhere): it wins over everything else. */
export function wantsHelp(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}

function integer(flag: string, value: string | undefined, min: number, max: number): number {
  const n = value === undefined ? Number.NaN : Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(
      `${flag} needs an integer from ${min} to ${max} (got ${value === undefined ? 'nothing' : `'${value}'`}); ${USAGE}`,
    );
  }
  return n;
}

/**
 * Parses the CLI's arguments (`--port N`, `--host H`, `--data-dir DIR`, `--sync normal|full`,
 * `--ttl-interval-ms N`, `--repl-set NAME`, also as `--flag=value`) into server options; throws an Error naming the bad argument and the usage.
 */
export function parseCliArgs(argv: readonly string[]): EmbeddedMongoOptions {
  const options: EmbeddedMongoOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.indexOf('=');
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    switch (flag) {
      case '--port':
        options.port = integer(flag, value, 0, 65535);
        break;
      case '--host':
        if (value === undefined || value === '') throw new Error(`--host needs a value; ${USAGE}`);
        options.host = value;
        break;
      case '--data-dir':
        if (value === undefined || value === '') throw new Error(`--data-dir needs a folder; ${USAGE}`);
        options.dataDir = value;
        break;
      case '--sync':
        if (value !== 'normal' && value !== 'full')
          throw new Error(`--sync needs 'normal' or 'full' (got ${value === undefined ? 'nothing' : `'${value}'`}); ${USAGE}`);
        options.sync = value;
        break;
      case '--ttl-interval-ms':
        options.ttlMonitorIntervalMs = integer(flag, value, 1, 86_400_000);
        break;
      case '--repl-set':
        if (value === undefined || value === '') throw new Error(`--repl-set needs a replica set name; ${USAGE}`);
        options.replicaSet = value;
        break;
      default:
        throw new Error(`unknown argument '${arg}'; ${USAGE}`);
    }
  }
  return options;
}
