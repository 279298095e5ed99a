/**
 * `@sas/embedded-mongo`: a MongoDB-wire-protocol server in TypeScript for tests and local runs
 * where no MongoDB can be installed. Implements the commands and operators this project uses,
 * refuses the rest with MongoDB's own error codes.
 *
 * @example
 * ```ts
 * import { EmbeddedMongoServer } from '@sas/embedded-mongo';
 * const server = new EmbeddedMongoServer({ ttlMonitorIntervalMs: 200 });
 * const { url } = await server.start(); // mongodb://127.0.0.1:<port>/?directConnection=true
 * ```
 */
export { EmbeddedMongoServer, type EmbeddedMongoOptions } from './embedded-mongo-server';
export { DataFileError } from './errors/data-file-error';
export type { SyncMode } from './storage/sqlite-data-file';
export type { LogLevel, LogSink } from './log-sink';
export type { QueryStats } from './storage/collection-store';
