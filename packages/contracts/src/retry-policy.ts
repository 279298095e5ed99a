import { z } from 'zod';

/**
 * How an agent retries transient faults of one step, always inside the step's complete-by time.
 * Delay before retry n (1-based) is `min(maxBackoffMs, initialBackoffMs * multiplier^(n-1))`,
 * then spread by `jitter` (0 = none, 1 = full jitter) so replicas do not retry in lock-step.
 */
export const RetryPolicy = z.object({
  /** Calls in total, the first included. @default 5 */
  maxAttempts: z.number().int().positive().default(5),
  /** @default 100 */
  initialBackoffMs: z.number().int().nonnegative().default(100),
  /** @default 2000 */
  maxBackoffMs: z.number().int().nonnegative().default(2000),
  /** @default 2 */
  multiplier: z.number().min(1).default(2),
  /** @default 0.5 */
  jitter: z.number().min(0).max(1).default(0.5),
});
export type RetryPolicy = z.infer<typeof RetryPolicy>;
