import type { EmbeddedMongoOptions } from './embedded-mongo-server';

/** The CLI usage line, printed with argument errors. */
export const USAGE = 'usage: node dist/cli.js [--port N] [--host H] [--ttl-interval-ms N] [--repl-set NAME]';

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
 * Parses the CLI's arguments (`--port N`, `--host H`, `--ttl-interval-ms N`, `--repl-set NAME`, also as
 * `--flag=value`) into server options; throws an Error naming the bad argument and the usage.
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
