import type { JobsOptions } from 'bullmq';

/** Options of one send. */
export interface SendOptions {
  /** Deduplicates: BullMQ ignores a job whose id is already in the queue. */
  jobId?: string;
  /** Deliver no earlier than this many ms from now. */
  delayMs?: number;
}

/**
 * Defaults for every job the bus sends. Retries are the consumer's business (its RetryPolicy);
 * `attempts` here only matters when the consumer could not even schedule its retry (Redis went
 * away mid-handler), and then BullMQ tries again. Completed jobs are kept for a while so the
 * dashboard can show them, then trimmed.
 */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 250 },
  removeOnComplete: { age: 3600, count: 5000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};
