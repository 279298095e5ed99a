import type { RetryPolicy } from '@sas/contracts';

/**
 * How long to wait before retry `retryNumber` (1 = the wait before the second call):
 * `min(maxBackoffMs, initialBackoffMs * multiplier^(retryNumber-1))`, then shortened by up to
 * `jitter` of itself so replicas that failed together do not retry together.
 * `random` returns a number in [0, 1) and is injected so tests and simulations are repeatable;
 * 0 gives the full delay, values near 1 the shortest one.
 *
 * @throws RangeError when `retryNumber` is not a positive integer.
 */
export function backoffDelay(policy: RetryPolicy, retryNumber: number, random: () => number): number {
  if (!Number.isInteger(retryNumber) || retryNumber < 1) {
    throw new RangeError(
      `retryNumber must be a positive integer (got ${retryNumber}); retry 1 is the wait before the second call`,
    );
  }
  // 0 * Infinity would be NaN once the exponent overflows; an initial delay of 0 stays 0.
  const grown =
    policy.initialBackoffMs === 0 ? 0 : policy.initialBackoffMs * policy.multiplier ** (retryNumber - 1);
  const base = Math.min(policy.maxBackoffMs, grown);
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(base - base * policy.jitter * r);
}
