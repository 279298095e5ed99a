import type { AgentRegistration } from '@sas/contracts';
import { ManualClock } from '@sas/testkit';
import { pino } from 'pino';
import { AgentRegistrar, type RegistrationSink } from './agent-registrar';
import type { AgentDefinition } from './agent-definition';
import type { Sleep } from './sleep';

const T0 = Date.UTC(2030, 0, 1);
const handler = (): Promise<Record<string, never>> => Promise.resolve({});
const payment: AgentDefinition = { name: 'payment', operations: { refund: handler, charge: handler }, compensations: ['refund'] };

class RecordingSink implements RegistrationSink {
  readonly puts: AgentRegistration[] = [];
  readonly removed: string[] = [];
  failPuts = 0;

  put(doc: AgentRegistration): Promise<void> {
    if (this.failPuts > 0) {
      this.failPuts -= 1;
      return Promise.reject(new Error('mongo down'));
    }
    this.puts.push(doc);
    return Promise.resolve();
  }

  remove(id: string): Promise<void> {
    this.removed.push(id);
    return Promise.resolve();
  }
}

/** A sleep the test ends beat by beat: each call waits until `tick()` (or the abort on close). */
function steppedSleep(clock: ManualClock): { sleep: Sleep; tick: () => Promise<void> } {
  let wake: (() => void) | undefined;
  const sleep: Sleep = (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      wake = () => {
        clock.t += ms;
        resolve();
      };
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
  const settle = (): Promise<void> => new Promise((r) => setImmediate(r));
  return {
    sleep,
    tick: async () => {
      await settle();
      wake?.();
      await settle();
    },
  };
}

function registrar(sink: RegistrationSink, clock: ManualClock, sleep: Sleep, agents: readonly AgentDefinition[] = [payment]): AgentRegistrar {
  return new AgentRegistrar({ agents, instanceId: 'host-1', version: '2.3.0', clock, sleep, sink, intervalMs: 10_000, logger: pino({ level: 'silent' }) });
}

describe('AgentRegistrar', () => {
  it('registers what the agent serves at start, refreshes it on each heartbeat and removes it on close', async () => {
    const clock = new ManualClock(T0);
    const sink = new RecordingSink();
    const { sleep, tick } = steppedSleep(clock);
    const r = registrar(sink, clock, sleep);
    r.start();
    await tick();
    await r.close();

    expect(sink.puts).toEqual([
      {
        _id: 'payment/host-1', agent: 'payment', instanceId: 'host-1', operations: ['charge', 'refund'], compensations: ['refund'],
        servesOtherOperations: false, version: '2.3.0', startedAt: new Date(T0), lastSeen: new Date(T0), deleteTime: new Date(T0 + 30_000),
      },
      expect.objectContaining({ startedAt: new Date(T0), lastSeen: new Date(T0 + 10_000), deleteTime: new Date(T0 + 40_000) }),
    ]);
    expect(sink.removed).toEqual(['payment/host-1']);
  });

  it('keeps beating after a failed write: a registration lost while MongoDB was away comes back', async () => {
    const clock = new ManualClock(T0);
    const sink = new RecordingSink();
    sink.failPuts = 1;
    const { sleep, tick } = steppedSleep(clock);
    const r = registrar(sink, clock, sleep);
    r.start();
    await tick();
    await r.close();
    expect(r.failedWrites()).toBe(1);
    expect(sink.puts.map((p) => p.lastSeen.getTime())).toEqual([T0 + 10_000]);
  });

  it('refuses at construction a compensation the agent has no handler for, and marks a catch-all', () => {
    const clock = new ManualClock(T0);
    const { sleep } = steppedSleep(clock);
    expect(() => registrar(new RecordingSink(), clock, sleep, [{ ...payment, compensations: ['refnd'] }])).toThrow(
      "agent 'payment' declares compensations it has no handler for: refnd (its operations: charge, refund)",
    );
    const sink = new RecordingSink();
    const r = registrar(sink, clock, sleep, [{ name: 'http', operations: {}, otherOperations: handler }]);
    r.start();
    return r.close().then(() => expect(sink.puts[0]).toMatchObject({ operations: [], servesOtherOperations: true }));
  });
});
