/**
 * Starts the local stack as real processes: a private `redis-server`, the resolved MongoDB and
 * our services as child processes. Used by the end-to-end tests (through `@sas/testkit`) and by
 * the one-command local demo.
 *
 * @example
 * ```ts
 * const redis = await startRedis({ log });
 * const mongo = await resolveMongo({ log });
 * const root = findWorkspaceRoot();
 * const scheduler = new ServiceProcess({
 *   name: 'scheduler-1',
 *   script: serviceScript(root, 'scheduler'),
 *   env: { REDIS_URL: redis.url, MONGO_URL: mongo.url },
 * });
 * await scheduler.start();
 * ```
 */
export * from './log-fn';
export * from './free-port';
export * from './find-on-path';
export * from './workspace-root';
export * from './output-line';
export * from './managed-process';
export * from './service-node-options';
export * from './service-process';
export * from './raw-redis-command';
export * from './ping-redis';
export * from './redis-server';
export * from './start-redis';
export * from './cluster-nodes';
export * from './redis-cluster';
export * from './mongo-target';
export * from './embedded-mongo';
export * from './resolve-mongo';
export * from './system-topology';
export * from './local-system';
