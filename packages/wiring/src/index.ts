/**
 * Start-up wiring shared by the submission, scheduler and supervisor services.
 *
 * @example
 * ```ts
 * runMain('scheduler', async () => {
 *   const config = loadConfig(SchedulerConfig, process.env);
 *   const svc = await openProcessService('scheduler', config);
 *   // construct components with svc.engine, svc.store, svc.bus ...
 * });
 * ```
 */
export * from './process-service';
export * from './run-main';
export * from './status-counting-outbox';
