import { RedisUnavailableError, TransientError } from '@sas/runtime';
import { decideRetry, infrastructureFault, storeFaultDelayMs, type RetryPolicy } from './retry-policy';

const policy: RetryPolicy = { attempts: 4, backoffMs: 100, maxBackoffMs: 350, storeFaultMaxBackoffMs: 250 };

describe('decideRetry', () => {
  it('doubles the delay after each failed delivery, up to the ceiling', () => {
    expect([1, 2, 3].map((delivery) => decideRetry(policy, delivery, new Error('x')))).toEqual([
      { retry: true, delayMs: 100 },
      { retry: true, delayMs: 200 },
      { retry: true, delayMs: 350 },
    ]);
  });

  it('gives up on the last delivery, whatever the error', () => {
    expect(decideRetry(policy, 4, new TransientError('x'))).toEqual({ retry: false });
    expect(decideRetry(policy, 9, new Error('x'))).toEqual({ retry: false });
  });

  it("waits as long as a remote's Retry-After asks when that is longer, still under the ceiling", () => {
    expect(decideRetry(policy, 1, new TransientError('busy', 300))).toEqual({ retry: true, delayMs: 300 });
    expect(decideRetry(policy, 1, new TransientError('busy', 10_000))).toEqual({ retry: true, delayMs: 350 });
    expect(decideRetry(policy, 2, new TransientError('busy', 50))).toEqual({ retry: true, delayMs: 200 });
  });
});

describe('storeFaultDelayMs', () => {
  it('doubles the delay per store fault in a row up to its own, shorter ceiling, however many there were', () => {
    expect([1, 2, 3, 4, 1000].map((faults) => storeFaultDelayMs(policy, faults))).toEqual([100, 200, 250, 250, 250]);
    expect(storeFaultDelayMs({ ...policy, storeFaultMaxBackoffMs: 10_000 }, 5)).toBe(350);
  });
});

describe('infrastructureFault', () => {
  it('names MongoDB and Redis faults, and leaves the handler\'s own failures to the retry policy', () => {
    const stepDown = Object.assign(new Error('not primary'), { name: 'MongoNetworkError' });
    expect(infrastructureFault(stepDown)).toMatchObject({ of: 'mongo' });
    expect(infrastructureFault(new Error('CLUSTERDOWN The cluster is down'))).toEqual({ of: 'redis', reason: 'Redis CLUSTERDOWN' });
    expect(infrastructureFault(new RedisUnavailableError('send took too long'))).toMatchObject({ of: 'redis' });
    expect(infrastructureFault(new Error('remote answered 500'))).toBeUndefined();
    expect(infrastructureFault(new TransientError('remote busy'))).toBeUndefined();
  });
});
