import { noFaults } from './fault-settings';
import { RemoteSim } from './remote-sim';
import type { RemoteSimMode } from './remote-sim-mode';
import { seededRandom } from './seeded-random';

function setup(mode?: RemoteSimMode): {
  sim: RemoteSim;
  call: (operation: string, key: string, body?: Record<string, unknown>, compensatesKey?: string) => number | 'hang';
} {
  let now = 1_000;
  const sim = new RemoteSim({ clock: { now: () => (now += 10) }, random: seededRandom(1), ...(mode ? { mode } : {}) });
  const call = (operation: string, key: string, body: Record<string, unknown> = {}, compensatesKey?: string): number | 'hang' => {
    const response = sim.call({ service: 'payment', operation, idempotencyKey: key, compensatesKey, body: { orderId: 'o-1', payload: {}, ...body } });
    return response.kind === 'answer' ? response.status : 'hang';
  };
  return { sim, call };
}

describe('RemoteSim in the plain mode (no cover for its caller)', () => {
  it('applies a forward call that arrives after the undo naming it, so the ledger shows the undo first', () => {
    const { sim, call } = setup('plain');

    expect(call('refund', 'o-1/charge/compensate', {}, 'o-1/charge/forward')).toBe(200);
    expect(call('charge', 'o-1/charge/forward', { payload: { amount: 5 } })).toBe(200);

    expect(sim.ledger().map((e) => `${e.operation} ${e.idempotencyKey}`)).toEqual(['refund o-1/charge/compensate', 'charge o-1/charge/forward']);
    expect(sim.ledger()[0]?.result).toMatchObject({ noop: true });
    expect(sim.stats().services.payment.outcomes.tombstoned).toBe(0);
  });

  it('still replays a known key instead of applying it again', () => {
    const { sim, call } = setup('plain');
    call('charge', 'k');
    expect(call('charge', 'k')).toBe(200);
    expect(sim.ledger()).toHaveLength(1);
  });

  it('is not the default: without a mode the late forward call is refused', () => {
    const { sim, call } = setup();
    expect(sim.mode).toBe('protective');
    call('refund', 'o-1/charge/compensate', {}, 'o-1/charge/forward');
    expect(call('charge', 'o-1/charge/forward')).toBe(409);
  });
});

describe('RemoteSim arrivals', () => {
  it('records every call in the order it came, whatever became of it, with the dispatch it names', () => {
    const { sim, call } = setup('plain');
    sim.setFaults('payment', { ...noFaults(), permanentFailOrders: ['o-1'] });
    call('charge', 'o-1/charge/forward', { step: 'charge', attempt: 3, try: 1 });
    sim.setFaults('payment', noFaults());
    call('charge', 'o-1/charge/forward', { step: 'charge', attempt: 3, try: 2 });
    call('charge', 'o-1/charge/forward', { step: 'charge', attempt: 5, try: 1 });
    call('refund', 'o-1/charge/compensate', { step: 'charge', attempt: 6, try: 1 }, 'o-1/charge/forward');

    expect(sim.arrivals()).toEqual([
      { arrivalId: 'arr-000001', service: 'payment', operation: 'charge', mode: 'forward', orderId: 'o-1', idempotencyKey: 'o-1/charge/forward', step: 'charge', attempt: 3, try: 1, at: expect.any(Number), outcome: 'permanent', applied: false },
      { arrivalId: 'arr-000002', service: 'payment', operation: 'charge', mode: 'forward', orderId: 'o-1', idempotencyKey: 'o-1/charge/forward', step: 'charge', attempt: 3, try: 2, at: expect.any(Number), outcome: 'ok', applied: true },
      { arrivalId: 'arr-000003', service: 'payment', operation: 'charge', mode: 'forward', orderId: 'o-1', idempotencyKey: 'o-1/charge/forward', step: 'charge', attempt: 5, try: 1, at: expect.any(Number), outcome: 'replayed', applied: false },
      {
        arrivalId: 'arr-000004',
        service: 'payment',
        operation: 'refund',
        mode: 'undo',
        orderId: 'o-1',
        idempotencyKey: 'o-1/charge/compensate',
        compensates: 'o-1/charge/forward',
        step: 'charge',
        attempt: 6,
        try: 1,
        at: expect.any(Number),
        outcome: 'ok',
        applied: true,
      },
    ]);
    const times = sim.arrivals().map((a) => a.at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('records a hanging call and a refused one, but not a call without a key (it names no dispatch)', () => {
    const { sim, call } = setup('protective');
    sim.setFaults('payment', { ...noFaults(), hang: true });
    expect(call('charge', 'k-1')).toBe('hang');
    sim.setFaults('payment', noFaults());
    call('refund', 'k-2/compensate', {}, 'k-2');
    expect(call('charge', 'k-2')).toBe(409);
    sim.call({ service: 'payment', operation: 'charge', idempotencyKey: undefined, body: { orderId: 'o-1', payload: {} } });

    expect(sim.arrivals().map((a) => [a.idempotencyKey, a.outcome, a.applied])).toEqual([
      ['k-1', 'hang', false],
      ['k-2/compensate', 'ok', true],
      ['k-2', 'tombstoned', false],
    ]);
  });

  it('notes when an arrival was answered or left, once, and forgets arrivals with the ledger', () => {
    const { sim, call } = setup('plain');
    call('charge', 'k-1');
    call('charge', 'k-2');
    const [first, second] = sim.arrivals();
    sim.answered(first!.arrivalId);
    sim.abandoned(first!.arrivalId);
    sim.abandoned(second!.arrivalId);
    sim.answered(second!.arrivalId);

    const [a, b] = sim.arrivals();
    expect([a?.answeredAt, a?.abandonedAt]).toEqual([expect.any(Number), undefined]);
    expect([b?.answeredAt, b?.abandonedAt]).toEqual([undefined, expect.any(Number)]);
    sim.resetLedger();
    expect(sim.arrivals()).toEqual([]);
  });

  it('marks a successful answer of a held operation, and only that, to wait for a release', () => {
    const { sim } = setup('plain');
    sim.setFaults('payment', { ...noFaults(), holdOperations: ['charge'] });
    const charge = sim.call({ service: 'payment', operation: 'charge', idempotencyKey: 'k', body: { orderId: 'o-1', payload: {} } });
    const refund = sim.call({ service: 'payment', operation: 'refund', idempotencyKey: 'k/u', body: { orderId: 'o-1', payload: {} } });
    expect(charge).toMatchObject({ kind: 'answer', status: 200, heldFor: 'payment' });
    expect(refund).not.toHaveProperty('heldFor');
    expect(sim.ledger()).toHaveLength(2);
  });
});
