import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { silentLog, type LogFn } from './log-fn';
import { ManagedProcess, type ManagedProcessOptions } from './managed-process';
import type { MongoTarget } from './mongo-target';
import { findWorkspaceRoot } from './workspace-root';

/** Options of {@link startEmbeddedMongo}. */
export interface EmbeddedMongoOptions {
  /** The CLI to run. @default {@link locateEmbeddedMongoCli}() */
  cliPath?: string;
  /** Passed as `--ttl-interval-ms`, so tests can see TTL deletions without waiting a minute. */
  ttlIntervalMs?: number;
  /** Passed as `--repl-set`: the server answers as the one member of this replica set and can step down. */
  replicaSet?: string;
  /** How long to wait for the `listening` line. @default 30000 */
  readyTimeoutMs?: number;
  log?: LogFn;
  /** Why the embedded server was chosen (kept on the returned target). @default 'requested' */
  reason?: string;
  /**
   * Passed as `--data-dir`: the server keeps its state in this folder (SQLite in WAL mode) and a
   * restart on it finds every acknowledged write. @default none: in memory, gone when it stops
   */
  dataDir?: string;
  /** Passed as `--port`; a fixed port lets {@link EmbeddedMongoTarget.restart} come back at the same URL. @default 0 (any free port) */
  port?: number;
  /** Its own process group, so a terminal's Ctrl-C reaches only the launcher (`sas up` stops it last). @default false */
  ownProcessGroup?: boolean;
  /** Told of every exit of the server's process. */
  onExit?: ManagedProcessOptions['onExit'];
}

/** The embedded server as {@link startEmbeddedMongo} started it: a {@link MongoTarget} that can be restarted. */
export interface EmbeddedMongoTarget extends MongoTarget {
  /** The server's process (its pid, its output, how it exited). */
  readonly process: ManagedProcess;
  /** Starts the server again (same port, same data folder) and waits for its `listening` line. */
  restart(): Promise<void>;
}

/** The line the embedded CLI prints on stdout once it accepts connections. */
type ListeningLine = { event: 'listening'; url: string };

function isListeningLine(json: Readonly<Record<string, unknown>> | undefined): json is ListeningLine {
  return json?.event === 'listening' && typeof json.url === 'string';
}

/**
 * The path of `@sas/embedded-mongo`'s `dist/cli.js`. Found through module resolution (so it works
 * from an installed copy) with the workspace layout as a fallback, because the package's
 * `exports` map need not expose `package.json`.
 */
export function locateEmbeddedMongoCli(): string {
  const cli = join(embeddedMongoPackageDir(), 'dist', 'cli.js');
  if (!existsSync(cli)) {
    throw new Error(
      `The embedded MongoDB is not built: ${cli} does not exist; run \`pnpm build\` first ` +
        '(or set MONGO_URL to use an existing MongoDB)',
    );
  }
  return cli;
}

function embeddedMongoPackageDir(): string {
  try {
    return dirname(require.resolve('@sas/embedded-mongo/package.json'));
  } catch {
    // The exports map hides package.json; try the package's main file next.
  }
  try {
    let dir = dirname(require.resolve('@sas/embedded-mongo'));
    while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
    return dir;
  } catch {
    // Not resolvable (main not built yet): fall back to the workspace layout.
  }
  return join(findWorkspaceRoot(), 'packages', 'embedded-mongo');
}

/**
 * Starts the embedded MongoDB as its own child process (`node cli.js --port 0`), so every
 * service reaches it over TCP exactly as it would a real `mongod`, and it survives the crash of
 * any service. Resolves once the CLI prints its `listening` JSON line.
 */
export async function startEmbeddedMongo(options: EmbeddedMongoOptions = {}): Promise<EmbeddedMongoTarget> {
  const cliPath = options.cliPath ?? locateEmbeddedMongoCli();
  const args = [cliPath, '--port', String(options.port ?? 0)];
  if (options.dataDir !== undefined) args.push('--data-dir', options.dataDir);
  if (options.ttlIntervalMs !== undefined) args.push('--ttl-interval-ms', String(options.ttlIntervalMs));
  if (options.replicaSet !== undefined) args.push('--repl-set', options.replicaSet);
  const child = new ManagedProcess({
    name: 'embedded-mongo',
    command: process.execPath,
    args,
    log: options.log ?? silentLog,
    maxLines: 500,
    ownProcessGroup: options.ownProcessGroup,
    onExit: options.onExit,
  });
  const timeoutMs = options.readyTimeoutMs ?? 30_000;
  const startAndListen = async (): Promise<string> => {
    await child.start();
    try {
      const line = await child.waitForLine((l) => isListeningLine(l.json), timeoutMs, 'the "listening" line');
      if (!isListeningLine(line.json)) throw new Error('unreachable: the predicate checked the listening line');
      return line.json.url;
    } catch (error) {
      await child.stop(2000);
      throw new Error(`MongoDB: the embedded server (${cliPath}) did not start: ${(error as Error).message}`, {
        cause: error,
      });
    }
  };
  const url = await startAndListen();
  return {
    url,
    kind: 'embedded',
    reason: options.reason ?? 'requested',
    process: child,
    ...(options.dataDir !== undefined && { dataDir: options.dataDir }),
    // Stores stop last and get longer than a service: the server commits what it holds before it exits.
    stop: () => child.stop(10_000),
    restart: async () => {
      await child.stop(5000);
      await startAndListen();
    },
  };
}
