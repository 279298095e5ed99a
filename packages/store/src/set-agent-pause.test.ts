import { AGENT_PAUSE_HISTORY_LIMIT } from '@sas/contracts';
import { InMemoryAgentPauseStore } from './in-memory-agent-pause-store';
import { setAgentPause } from './set-agent-pause';

const T0 = Date.UTC(2030, 0, 1);

describe('pausing and resuming an agent', () => {
  it('records who paused and resumed it and why, and answers a repeat without writing', async () => {
    const store = new InMemoryAgentPauseStore();
    const paused = await setAgentPause(store, { agent: 'payment', action: 'pause', by: 'operator:alice', reason: 'PSP maintenance', now: T0 });
    expect(paused).toMatchObject({ changed: true, message: 'agent payment paused by operator:alice: PSP maintenance; new dispatches to it are held' });
    const again = await setAgentPause(store, { agent: 'payment', action: 'pause', by: 'operator:bob', now: T0 + 5 });
    expect(again).toMatchObject({ changed: false, message: 'agent payment is already paused (since 2030-01-01T00:00:00.000Z, by operator:alice)' });
    await setAgentPause(store, { agent: 'payment', action: 'resume', by: 'operator:bob', reason: 'PSP is back', now: T0 + 60_000 });
    expect(await store.get('payment')).toEqual({
      _id: 'payment',
      paused: false,
      by: 'operator:bob',
      reason: 'PSP is back',
      since: new Date(T0 + 60_000),
      revision: 1,
      history: [
        { action: 'pause', by: 'operator:alice', reason: 'PSP maintenance', at: new Date(T0) },
        { action: 'resume', by: 'operator:bob', reason: 'PSP is back', at: new Date(T0 + 60_000) },
      ],
    });
  });

  it('resuming an agent never paused writes nothing', async () => {
    const store = new InMemoryAgentPauseStore();
    expect(await setAgentPause(store, { agent: 'shipping', action: 'resume', by: 'alice', now: T0 })).toMatchObject({ changed: false, message: 'agent shipping is not paused' });
    expect(await store.list()).toEqual([]);
  });

  it('keeps the latest actions only', async () => {
    const store = new InMemoryAgentPauseStore();
    for (let i = 0; i < AGENT_PAUSE_HISTORY_LIMIT + 5; i++) {
      await setAgentPause(store, { agent: 'payment', action: i % 2 === 0 ? 'pause' : 'resume', by: 'alice', now: T0 + i });
    }
    const doc = await store.get('payment');
    expect(doc?.history).toHaveLength(AGENT_PAUSE_HISTORY_LIMIT);
    expect(doc?.history.at(-1)?.at).toEqual(new Date(T0 + AGENT_PAUSE_HISTORY_LIMIT + 4));
  });

  it('re-reads and applies on top when another operator wrote first', async () => {
    const inner = new InMemoryAgentPauseStore();
    let raced = false;
    const store = {
      list: () => inner.list(),
      get: (agent: string) => inner.get(agent),
      write: async (...args: Parameters<InMemoryAgentPauseStore['write']>) => {
        if (!raced) {
          raced = true;
          // Bob pauses between Alice's read and her write.
          await setAgentPause(inner, { agent: 'payment', action: 'pause', by: 'bob', now: T0 });
        }
        return inner.write(...args);
      },
    };
    const alice = await setAgentPause(store, { agent: 'payment', action: 'pause', by: 'alice', now: T0 + 1 });
    expect(alice).toMatchObject({ changed: false, message: expect.stringContaining('already paused') });
    expect(await inner.get('payment')).toMatchObject({ paused: true, by: 'bob', revision: 0 });
  });
});
