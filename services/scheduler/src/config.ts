import { z } from 'zod';
import { CommonConfig } from '@sas/runtime';

/** Environment of the scheduler service. */
export const SchedulerConfig = z.object({
  ...CommonConfig,
  /** JSON file with extra workflow definitions (an array); the built-in ones are always there. */
  WORKFLOWS_FILE: z.string().optional(),
  /** How often to look for claimable processes even without a wake-up hint (missed hints, restarts). */
  POLL_INTERVAL_MS: z.coerce.number().int().positive().default(1000),
  /** Candidates read per claim query. */
  CLAIM_BATCH: z.coerce.number().int().positive().default(20),
  /** Replies applied at once. */
  REPLY_CONCURRENCY: z.coerce.number().int().positive().default(16),
});
export type SchedulerConfig = z.infer<typeof SchedulerConfig>;
