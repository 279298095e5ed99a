import type { RetryPolicy } from '@sas/contracts';
import { backoffDelay } from './backoff';

const policy: RetryPolicy = {
  maxAttempts: 10,
  initialBackoffMs: 100,
  maxBackoffMs: 2000,
  multiplier: 2,
  jitter: 0.5,
};
const noJitter = (): number => 0;

describe('backoffDelay', () => {
  it('grows by the multiplier from the initial delay and stops at the maximum', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelay(policy, n, noJitter));

    expect(delays).toEqual([100, 200, 400, 800, 1600, 2000, 2000]);
  });

  it('takes up to `jitter` of the delay off, by the injected randomness', () => {
    expect(backoffDelay(policy, 3, () => 0)).toBe(400);
    expect(backoffDelay(policy, 3, () => 0.5)).toBe(300);
    expect(backoffDelay(policy, 3, () => 0.999)).toBe(200);
    expect(backoffDelay({ ...policy, jitter: 1 }, 3, () => 0.75)).toBe(100);
    expect(backoffDelay({ ...policy, jitter: 0 }, 3, () => 0.75)).toBe(400);
  });

  it('keeps a randomness source that strays outside [0, 1) inside the jitter range', () => {
    expect(backoffDelay(policy, 1, () => 7)).toBe(50);
    expect(backoffDelay(policy, 1, () => -1)).toBe(100);
  });

  it('stays at the maximum (not NaN) when the exponent overflows, and at 0 for a zero initial delay', () => {
    expect(backoffDelay(policy, 5000, noJitter)).toBe(2000);
    expect(backoffDelay({ ...policy, initialBackoffMs: 0 }, 5000, noJitter)).toBe(0);
  });

  it('rejects a retry number below 1, explaining the numbering', () => {
    expect(() => backoffDelay(policy, 0, noJitter)).toThrow(
      'retryNumber must be a positive integer (got 0); retry 1 is the wait before the second call',
    );
    expect(() => backoffDelay(policy, 1.5, noJitter)).toThrow(RangeError);
  });
});
