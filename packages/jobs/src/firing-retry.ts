/**
 * How a firing that failed transiently (a Redis or MongoDB blip) is retried: it stays in flight
 * and is tried again after `retryDelayMs`, doubling per failed attempt up to `maxRetryDelayMs`,
 * until `maxFiringAttempts` sends of the trigger have failed; then it is FAILED.
 */
export interface FiringRetryPolicy {
  /** Delay after the first failed attempt. @default 1000 */
  retryDelayMs: number;
  /** Cap on the delay between attempts. @default 60000 */
  maxRetryDelayMs: number;
  /**
   * Failed attempts after which the firing is FAILED (its failure command sent). With the defaults
   * (1 s doubling to 60 s, 20 attempts) a firing is given up about 14 minutes after its first try.
   * @default 20
   */
  maxFiringAttempts: number;
}

/** The defaults of {@link FiringRetryPolicy}. */
export const DEFAULT_FIRING_RETRY: FiringRetryPolicy = { retryDelayMs: 1000, maxRetryDelayMs: 60_000, maxFiringAttempts: 20 };

/** How long to wait after the `attempts`-th failed attempt (1-based): exponential, capped. */
export function retryDelayMs(attempts: number, policy: FiringRetryPolicy): number {
  const exponent = Math.max(0, attempts - 1);
  // Capped before the power can overflow.
  if (exponent >= 30) return policy.maxRetryDelayMs;
  return Math.min(policy.maxRetryDelayMs, policy.retryDelayMs * 2 ** exponent);
}
