import type { JobsOptions } from 'bullmq';

/**
 * Options of every job put on a system queue, by the services (`@sas/bus`) and by applications
 * (this client) alike. Retries are the consumer's business (its retry policy); `attempts` here only
 * matters when the consumer could not even schedule its retry (Redis went away mid-handler), and
 * then BullMQ tries again. Completed jobs are kept for a while so the dashboard can show them (and
 * a job id stays taken that long), then trimmed.
 */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 250 },
  removeOnComplete: { age: 3600, count: 5000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};
