import { startEmbeddedMongo, type EmbeddedMongoOptions } from './embedded-mongo';
import { findOnPath } from './find-on-path';
import { silentLog, type LogFn } from './log-fn';
import { startMemoryServerMongo } from './memory-server-mongo';
import type { MongoTarget } from './mongo-target';

/** Options of {@link resolveMongo}. */
export interface ResolveMongoOptions {
  log?: LogFn;
  /** Where MONGO_URL, MONGOMS_SYSTEM_BINARY and PATH are read. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Passed to the embedded server as `--ttl-interval-ms`. */
  ttlIntervalMs?: number;
  /** Passed to the embedded server as `--repl-set` (a one-member replica set that can step down). */
  replicaSet?: string;
  /** Embedded CLI to run instead of `@sas/embedded-mongo`'s (tests of this package use a fake one). */
  embeddedCliPath?: string;
  /** How the embedded server runs, when it is the one picked: its data folder, port, process group, exit hook. */
  embedded?: Pick<EmbeddedMongoOptions, 'dataDir' | 'port' | 'ownProcessGroup' | 'onExit'>;
  /**
   * Skip a `mongod` found on PATH: a durable `sas up` runs the embedded server on its data folder,
   * which it restarts itself; a team's own MongoDB comes through MONGO_URL. @default false
   */
  skipMemoryServer?: boolean;
}

/**
 * Picks the MongoDB for a test run or the local demo, in the order DESIGN.md gives:
 * `MONGO_URL` → a real `mongod` via mongodb-memory-server-core, only when a binary is already
 * here (`MONGOMS_SYSTEM_BINARY`, or `mongod` on PATH; never a download) → the embedded server as
 * its own process. Logs which one and why, since the three behave differently under load.
 */
export async function resolveMongo(options: ResolveMongoOptions = {}): Promise<MongoTarget> {
  const env = options.env ?? process.env;
  const log = options.log ?? silentLog;
  const external = env.MONGO_URL;
  if (external !== undefined && external !== '') {
    if (!/^mongodb(\+srv)?:\/\//.test(external)) {
      throw new Error(
        `MONGO_URL is not a mongodb:// URL (got '${external}'); set it or unset it to use the embedded store`,
      );
    }
    const reason = 'MONGO_URL is set';
    log('MongoDB: external server (MONGO_URL is set)', { kind: 'external' });
    return { url: external, kind: 'external', reason, stop: () => Promise.resolve() };
  }
  const systemBinary = env.MONGOMS_SYSTEM_BINARY;
  const binary = options.skipMemoryServer === true ? undefined : systemBinary !== undefined && systemBinary !== '' ? systemBinary : findOnPath('mongod', env);
  if (binary !== undefined) {
    const reason =
      binary === systemBinary
        ? 'no MONGO_URL; MONGOMS_SYSTEM_BINARY is set'
        : `no MONGO_URL; mongod found at ${binary}`;
    log(`MongoDB: real mongod through mongodb-memory-server-core (${reason})`, {
      kind: 'memory-server',
      binary,
    });
    const target = await startMemoryServerMongo(binary, reason);
    log('MongoDB: mongod ready', { url: target.url });
    return target;
  }
  const reason = options.skipMemoryServer === true ? 'no MONGO_URL; kept in the data folder' : 'no MONGO_URL, no mongod binary';
  log(`MongoDB: embedded server (${reason})`, { kind: 'embedded' });
  const target = await startEmbeddedMongo({
    cliPath: options.embeddedCliPath,
    ttlIntervalMs: options.ttlIntervalMs,
    replicaSet: options.replicaSet,
    log,
    reason,
    ...options.embedded,
  });
  log('MongoDB: embedded server ready', { url: target.url });
  return target;
}
