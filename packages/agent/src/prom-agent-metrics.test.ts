import { ProbeServer, createMetricsRegistry } from '@sas/runtime';
import { scrapeMetrics } from '@sas/testkit';
import type { BreakerSnapshot, BreakerStateListener, Breakers } from './breakers';
import { PromAgentMetrics } from './prom-agent-metrics';

/** Breakers whose state a test sets, telling listeners as opossum's events would. */
class SettableBreakers implements Pick<Breakers, 'state' | 'onStateChange'> {
  private readonly states = new Map<string, BreakerSnapshot>();
  private readonly listeners = new Set<BreakerStateListener>();

  state(service: string): BreakerSnapshot {
    return this.states.get(service) ?? { state: 'closed', retryAt: null };
  }

  onStateChange(listener: BreakerStateListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  set(service: string, state: BreakerSnapshot['state']): void {
    const snapshot = { state, retryAt: null };
    this.states.set(service, snapshot);
    for (const l of this.listeners) l(service, snapshot);
  }
}

describe("an agent's /metrics", () => {
  const registry = createMetricsRegistry();
  const metrics = new PromAgentMetrics(registry);
  const breakers = new SettableBreakers();
  const probe = new ProbeServer({ ready: () => true, registry });
  let url = '';

  beforeAll(async () => {
    breakers.set('payment', 'open');
    metrics.watchBreakers(breakers, ['payment', 'shipping']);
    url = `http://127.0.0.1:${await probe.start(0, '127.0.0.1')}/metrics`;
  });
  afterAll(() => probe.close());

  it('counts requests by outcome, and remote calls and retries from their calls', async () => {
    metrics.requestHandled('payment', { kind: 'replied-ok', calls: 3 });
    metrics.requestHandled('payment', { kind: 'replied-error', errorKind: 'permanent', message: 'declined', calls: 1 });
    metrics.requestHandled('payment', { kind: 'parked', retryAfterMs: 500, calls: 0 });
    metrics.requestHandled('payment', { kind: 'expired-before-start' });
    const page = await scrapeMetrics(url);
    expect(page.family('sas_agent_requests_total')).toMatchObject({ type: 'counter', help: expect.stringMatching(/by agent and outcome/) });
    expect(page.series('sas_agent_requests_total', { agent: 'payment' }).map((s) => [s.labels['outcome'], s.value])).toEqual([
      ['replied-ok', 1],
      ['replied-error', 1],
      ['parked', 1],
      ['expired-before-start', 1],
    ]);
    expect(page.total('sas_agent_remote_calls_total', { agent: 'payment' })).toBe(4);
    expect(page.total('sas_agent_retries_total', { agent: 'payment' })).toBe(2);
  });

  it("shows each agent's breaker at once and follows its state changes: 0 closed, 1 half-open, 2 open", async () => {
    const state = async (agent: string): Promise<number> => (await scrapeMetrics(url)).total('sas_agent_breaker_state', { agent });
    expect((await scrapeMetrics(url)).family('sas_agent_breaker_state').type).toBe('gauge');
    expect(await state('payment')).toBe(2);
    expect(await state('shipping')).toBe(0);
    breakers.set('payment', 'halfOpen');
    expect(await state('payment')).toBe(1);
    breakers.set('payment', 'closed');
    expect(await state('payment')).toBe(0);
    breakers.set('inventory', 'open'); // not an agent of this process
    expect((await scrapeMetrics(url)).series('sas_agent_breaker_state', { agent: 'inventory' })).toEqual([]);
  });
});
