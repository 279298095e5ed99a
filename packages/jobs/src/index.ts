/**
 * Persistent job scheduling after the IPF Persistent Scheduler: job specifications (cron with a
 * zone and calendar, or a one-off instant), an append-only execution status history, TTL on
 * finished jobs, and the `JobRunner` that fires due jobs from the store (so restarts rehydrate).
 *
 * @example
 * ```ts
 * await ensureJobIndexes(db);
 * const store = new MongoJobStore(db);
 * const jobs = new JobSpecificationService(store, { clock: systemClock });
 * await jobs.create({ jobSpecificationKey: 'nightly', schedulingSpecification: '0 2 * * *', ... }, 'ops');
 * new JobRunner(store, bus, systemClock, new LeaseRepository(db), logger, { instanceId }).start();
 * ```
 */
export * from './local-day';
export * from './excluded-day';
export * from './cron-occurrences';
export * from './fire-times';
export * from './plan-firing';
export * from './job-status-transitions';
export * from './validate-job-specification';
export * from './new-job-document';
export * from './job-messages';
export * from './status-entry';
export * from './job-collection-names';
export * from './ensure-job-indexes';
export * from './job-store';
export * from './in-memory-job-store';
export * from './mongo-job-store';
export * from './job-outbox';
export * from './job-lease';
export * from './job-firing';
export * from './job-runner';
export * from './job-specification-service';
