/**
 * What every service's `main.ts` uses: config, logging, probes, shutdown, error classes, clock.
 *
 * @example
 * ```ts
 * const config = loadConfig(z.object({ ...CommonConfig }), process.env);
 * const logger = createLogger({ service: 'scheduler', instanceId, level: config.LOG_LEVEL });
 * installShutdown(logger, [worker, store]);
 * ```
 */
export * from './errors/transient-error';
export * from './errors/redis-unavailable-error';
export * from './errors/permanent-error';
export * from './errors/config-error';
export * from './errors/ensure-error';
export * from './errors/transient-fault';
export * from './load-config';
export * from './config-fields';
export * from './liveness-config';
export * from './stall-board';
export * from './create-logger';
export * from './instance-id';
export * from './close-all';
export * from './shutdown';
export * from './probe-server';
export * from './metrics-registry';
export * from './tracing';
export * from './tracing-config';
export * from './create-tracing';
export * from './scraped-counter';
export * from './clock';
export * from './read-optional-file';
export * from './process-shutdown';
