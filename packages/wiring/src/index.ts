/**
 * Start-up wiring shared by the submission, scheduler and supervisor services, and the process
 * that hosts several of them (`runSharedProcess`).
 *
 * @example
 * ```ts
 * runMain('scheduler', async (env) => {
 *   const config = loadConfig(SchedulerConfig, env);
 *   const svc = await openProcessService('scheduler', config);
 *   // construct components with svc.engine, svc.store, svc.bus ...
 *   return { logger: svc.logger, closables: [...mine, ...svc.closables], ready: () => svc.logger.info('scheduler ready') };
 * });
 * ```
 */
export * from './local-wakeups';
export * from './process-service';
export * from './run-main';
export * from './shared-process';
export * from './shared-role-env';
export * from './status-counting-outbox';
