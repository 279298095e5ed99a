import { z } from 'zod';
import { CommonConfig } from '@sas/runtime';

/** Environment of the supervisor service. */
export const SupervisorConfig = z.object({
  ...CommonConfig,
  /** JSON file with extra workflow definitions (an array); the built-in ones are always there. */
  WORKFLOWS_FILE: z.string().optional(),
  /** Time between sweeps for processes past complete-by. */
  SWEEP_INTERVAL_MS: z.coerce.number().int().positive().default(1000),
  /** Expired processes recovered per query. */
  SWEEP_BATCH: z.coerce.number().int().positive().default(100),
  /**
   * How long the sweep lease lasts: one supervisor sweeps, the others stand by and take over this
   * long after it dies. Defaults to 3 × SWEEP_INTERVAL_MS.
   */
  LEASE_TTL_MS: z.coerce.number().int().positive().optional(),
  /** How long a reading of the paused agents is used (an expired step of a paused agent is held, decision 49). */
  PAUSE_CACHE_MS: z.coerce.number().int().positive().default(1000),
});
export type SupervisorConfig = z.infer<typeof SupervisorConfig>;
