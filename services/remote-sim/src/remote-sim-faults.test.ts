import { noFaults, type ServiceFaults } from './fault-settings';
import { RemoteSim } from './remote-sim';
import { seededRandom } from './seeded-random';
import type { SimResponse } from './sim-response';

interface Harness {
  sim: RemoteSim;
  advance(ms: number): void;
  call(operation: string, key: string, orderId?: string): SimResponse;
  faults(patch: Partial<ServiceFaults>): void;
}

// Every test drives the payment service; the fault logic is the same for each service.
function setup(seed = 42): Harness {
  let now = 1_000_000;
  const sim = new RemoteSim({ clock: { now: () => now }, random: seededRandom(seed) });
  return {
    sim,
    advance: (ms) => {
      now += ms;
    },
    call: (operation, key, orderId = 'o-1') =>
      sim.call({ service: 'payment', operation, idempotencyKey: key, body: { orderId, payload: { amount: 3 } } }),
    faults: (patch) => sim.setFaults('payment', { ...noFaults(), ...patch }),
  };
}

function statusOf(response: SimResponse): number | 'hang' {
  return response.kind === 'answer' ? response.status : 'hang';
}

describe('RemoteSim faults', () => {
  describe('with an error rate', () => {
    function run(seed: number): Array<number | 'hang'> {
      const h = setup(seed);
      h.faults({ errorRate: 0.5 });
      return Array.from({ length: 40 }, (_, i) => statusOf(h.call('charge', `k-${i}`, `o-${i}`)));
    }

    it('fails the same calls for the same seed and other calls for another seed', () => {
      const first = run(42);
      expect(run(42)).toEqual(first);
      expect(run(7)).not.toEqual(first);
      expect(first).toContain(200);
      expect(first).toContain(503);
    });

    it('applies no effect for a call it fails', () => {
      const h = setup();
      h.faults({ errorRate: 1 });
      const response = h.call('charge', 'k-1');
      expect(response).toMatchObject({ status: 503, body: { error: 'payment is temporarily unavailable; retry with the same Idempotency-Key' } });
      expect(h.sim.ledger()).toEqual([]);
      expect(h.sim.stats().services.payment.outcomes.error503).toBe(1);
    });
  });

  describe('with a lost-reply rate', () => {
    it('applies the effect, answers 503, and replays that effect on a retry with the same key', () => {
      const h = setup();
      h.faults({ lostReplyRate: 1 });
      const lost = h.call('charge', 'k-1');
      expect(lost).toMatchObject({ status: 503, body: { error: 'payment is temporarily unavailable; retry with the same Idempotency-Key' } });
      expect(h.sim.ledger()).toHaveLength(1);

      const retry = h.call('charge', 'k-1');
      expect(retry).toMatchObject({ status: 200, headers: { 'Idempotent-Replayed': 'true' }, body: { effectId: 'eff-000001' } });
      expect(h.sim.ledger()).toHaveLength(1);
      expect(h.sim.stats().services.payment.outcomes).toMatchObject({ lost: 1, replayed: 1, ok: 0 });
    });
  });

  describe('with latency', () => {
    it('asks for the delay on every answer and still applies the effect', () => {
      const h = setup();
      h.faults({ latencyMs: 250 });
      expect(h.call('charge', 'k-1')).toMatchObject({ status: 200, delayMs: 250 });
      expect(h.call('charge', 'k-1')).toMatchObject({ status: 200, delayMs: 250, headers: { 'Idempotent-Replayed': 'true' } });
      expect(h.sim.ledger()).toHaveLength(1);
    });
  });

  describe('when hanging', () => {
    it('never answers and applies no effect', () => {
      const h = setup();
      h.faults({ hang: true, latencyMs: 10 });
      expect(h.call('charge', 'k-1')).toEqual({ kind: 'hang', arrivalId: 'arr-000001' });
      expect(h.sim.ledger()).toEqual([]);
      expect(h.sim.stats().services.payment.outcomes.hang).toBe(1);
    });
  });

  describe('during an outage', () => {
    it('answers 503 with the seconds left in Retry-After, then serves once the window ends', () => {
      const h = setup();
      h.faults({ outageUntil: 1_005_000 });
      const early = h.call('charge', 'k-1');
      expect(early).toMatchObject({
        status: 503,
        headers: { 'Retry-After': '5' },
        body: { error: 'payment is down for maintenance until 1970-01-01T00:16:45.000Z; retry after 5s with the same Idempotency-Key' },
      });
      h.advance(4_500);
      expect(h.call('charge', 'k-1')).toMatchObject({ status: 503, headers: { 'Retry-After': '1' } });
      expect(h.sim.ledger()).toEqual([]);
      h.advance(500);
      expect(h.call('charge', 'k-1')).toMatchObject({ status: 200, headers: {} });
      expect(h.sim.stats().services.payment.outcomes).toMatchObject({ outage: 2, ok: 1 });
    });

    it('takes precedence over a replay: a service that is down answers nothing useful', () => {
      const h = setup();
      h.call('charge', 'k-1');
      h.faults({ outageUntil: 1_001_000 });
      expect(h.call('charge', 'k-1')).toMatchObject({ status: 503 });
    });
  });

  describe('with permanently failing orders', () => {
    it('refuses the forward operation of those orders with 422 and no effect', () => {
      const h = setup();
      h.faults({ permanentFailOrders: ['o-bad'] });
      expect(h.call('charge', 'k-1', 'o-bad')).toMatchObject({
        status: 422,
        body: { error: "payment.charge is refused for order 'o-bad' (injected permanent failure); do not retry, fail or compensate the step" },
      });
      expect(h.call('charge', 'k-2', 'o-good')).toMatchObject({ status: 200 });
      expect(h.sim.ledger().map((e) => e.orderId)).toEqual(['o-good']);
    });

    it('still lets their compensations succeed', () => {
      const h = setup();
      h.faults({ permanentFailOrders: ['o-bad'] });
      expect(h.call('refund', 'k-1', 'o-bad')).toMatchObject({ status: 200 });
    });
  });

  describe('with permanently failing operations', () => {
    it('refuses that operation for every order, compensations included', () => {
      const h = setup();
      h.faults({ permanentFailOperations: ['refund'] });
      expect(h.call('refund', 'k-1', 'o-1')).toMatchObject({
        status: 422,
        body: { error: 'payment.refund is refused for every order (injected permanent failure); do not retry, fail or compensate the step' },
      });
      expect(h.call('charge', 'k-2', 'o-1')).toMatchObject({ status: 200 });
      expect(h.sim.stats().services.payment.operations['refund']?.permanent).toBe(1);
    });
  });

  it('injects faults only into the service they were set for', () => {
    const h = setup();
    h.faults({ errorRate: 1 });
    const other = h.sim.call({ service: 'shipping', operation: 'create', idempotencyKey: 'k', body: { orderId: 'o', payload: {} } });
    expect(statusOf(other)).toBe(200);
  });

  it('behaves normally again once faults are cleared', () => {
    const h = setup();
    h.faults({ hang: true });
    h.sim.clearFaults('payment');
    expect(h.sim.faults().payment).toEqual(noFaults());
    expect(statusOf(h.call('charge', 'k-1'))).toBe(200);
  });
});
