import { z } from 'zod';
import { DEFAULT_MISFIRE_THRESHOLD_MS } from '@sas/jobs';
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
  /** Wake-ups handled at once; each claims the process it names. */
  WAKEUP_CONCURRENCY: z.coerce.number().int().positive().default(8),
  /**
   * How long a reading of the paused agents is used: for up to this long after a pause, a dispatch
   * to that agent may still leave (decision 49).
   */
  PAUSE_CACHE_MS: z.coerce.number().int().positive().default(1000),
  /** Held processes this scheduler releases per second at most once their agent is resumed. */
  RELEASE_RATE: z.coerce.number().positive().default(20),
  /** Time between rounds of releasing held work. */
  RELEASE_INTERVAL_MS: z.coerce.number().int().positive().default(500),
  /**
   * How long after start the scheduler compares its workflows with the live agents (agents started
   * with it have registered by then); a gap is a warning and an alert. -1: never.
   */
  AGENT_CHECK_DELAY_MS: z.coerce.number().int().min(-1).default(30_000),
  /** Replies applied at once. */
  REPLY_CONCURRENCY: z.coerce.number().int().positive().default(16),
  /** Run persistent jobs (job specifications) in this scheduler; `false` leaves them to other instances. */
  JOBS_ENABLED: z
    .enum(['true', 'false'], { message: "JOBS_ENABLED must be 'true' or 'false'" })
    .default('true')
    .transform((v) => v === 'true'),
  /** How often the job runner looks for due jobs (and renews its lease). */
  JOBS_POLL_INTERVAL_MS: z.coerce.number().int().positive().default(1000),
  /** How long finished (triggered, failed, canceled) jobs and their history stay before the TTL removes them; 7 days. */
  JOBS_RETENTION_MS: z.coerce.number().int().positive().default(7 * 24 * 60 * 60 * 1000),
  /**
   * How long the `job-runner` lease lasts: one scheduler fires jobs, the others stand by and take
   * over this long after it dies. Defaults to 3 × JOBS_POLL_INTERVAL_MS.
   */
  JOBS_LEASE_TTL_MS: z.coerce.number().int().positive().optional(),
  /**
   * How late a job's occurrence may fire and still fire on its own (a job's `misfireThresholdMs`
   * wins); later occurrences follow the job's `misfirePolicy`. 60 s, as Quartz.
   */
  JOBS_MISFIRE_THRESHOLD_MS: z.coerce.number().int().nonnegative().default(DEFAULT_MISFIRE_THRESHOLD_MS),
  /**
   * A firing claimed this long ago and neither settled nor waiting for a retry is redone by the
   * lease holder (its runner died mid-firing). Defaults to JOBS_LEASE_TTL_MS.
   */
  JOBS_IN_FLIGHT_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
  /** A firing more than this after its occurrence is recorded `late: true`. Defaults to 2 × JOBS_POLL_INTERVAL_MS. */
  JOBS_LATE_TOLERANCE_MS: z.coerce.number().int().nonnegative().optional(),
  /** How often the bulk runner looks for running bulk operations. */
  BULK_POLL_INTERVAL_MS: z.coerce.number().int().positive().default(1000),
  /** How long a bulk operation's lease lasts: another scheduler resumes it this long after its runner dies. */
  BULK_LEASE_TTL_MS: z.coerce.number().int().positive().default(15_000),
  /** Processes a bulk operation reads per page (its cursor and counts are committed once per page). */
  BULK_PAGE_SIZE: z.coerce.number().int().positive().max(1000).default(50),
  /** How long finished bulk operations stay before the TTL removes them; 7 days. */
  BULK_RETENTION_MS: z.coerce.number().int().positive().default(7 * 24 * 60 * 60 * 1000),
});
export type SchedulerConfig = z.infer<typeof SchedulerConfig>;
