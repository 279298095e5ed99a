import type { AgentPauseDocument } from '@sas/contracts';
import { ManualClock } from '@sas/testkit';
import { PausedAgentsCache } from './paused-agents-cache';

const T0 = Date.UTC(2030, 0, 1);

function pause(agent: string, paused: boolean): AgentPauseDocument {
  return { _id: agent, paused, by: 'alice', reason: null, since: new Date(T0), revision: 0, history: [] };
}

describe('the cached reading of paused agents', () => {
  it('reads the store at most once per period, shares one read between callers, and sees a change after the period', async () => {
    const clock = new ManualClock(T0);
    let docs = [pause('payment', true), pause('shipping', false)];
    let reads = 0;
    const changes: string[][] = [];
    const cache = new PausedAgentsCache({ store: { list: async () => (reads++, docs) }, clock, ttlMs: 1000, onChange: (p) => changes.push([...p]) });
    const [a, b] = await Promise.all([cache.current(), cache.current()]);
    expect([...(a ?? [])]).toEqual(['payment']);
    expect(b).toBe(a);
    expect([...(await cache.resumed()).keys()]).toEqual(['shipping']);
    expect(reads).toBe(1);
    docs = [pause('payment', false), pause('shipping', false)];
    clock.t += 999;
    expect([...(await cache.current())]).toEqual(['payment']);
    clock.t += 1;
    expect([...(await cache.current())]).toEqual([]);
    expect(reads).toBe(2);
    cache.invalidate();
    await cache.current();
    expect(reads).toBe(3);
    // Told once per change, not per reading.
    expect(changes).toEqual([['payment'], []]);
  });

  it('does not cache a failed read: the caller gets the error and the next call reads again', async () => {
    const clock = new ManualClock(T0);
    let fail = true;
    const cache = new PausedAgentsCache({
      store: {
        list: async () => {
          if (fail) throw new Error('connection reset');
          return [pause('payment', true)];
        },
      },
      clock,
    });
    await expect(cache.current()).rejects.toThrow('connection reset');
    fail = false;
    expect([...(await cache.current())]).toEqual(['payment']);
  });
});
