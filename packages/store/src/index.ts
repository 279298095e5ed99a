/**
 * MongoDB repositories. No business rules: only conditional writes and queries.
 *
 * @example
 * ```ts
 * const { db } = await connectStore(config.MONGO_URL, config.MONGO_DB);
 * await ensureIndexes(db);
 * const store = new MongoProcessStore(db);
 * ```
 */
export * from './collection-names';
export * from './connect-store';
export * from './store-client-options';
export type { StallReporter } from './store-stall-watch';
export * from './ensure-indexes';
export * from './commit-result';
export * from './process-store';
export * from './process-summary';
export * from './mongo-process-store';
export * from './in-memory-process-store';
export * from './breaker-repository';
export * from './lease-repository';
export * from './in-memory-lease';
export * from './agent-pause-store';
export * from './mongo-agent-pause-store';
export * from './in-memory-agent-pause-store';
export * from './set-agent-pause';
export * from './mongo-audit-log';
export * from './agent-registration-repository';
