import { RemoteSim } from './remote-sim';
import { seededRandom } from './seeded-random';
import type { SimResponse } from './sim-response';

type Answer = Extract<SimResponse, { kind: 'answer' }>;

function setup(): { sim: RemoteSim; call: (service: string, operation: string, key: string, orderId: string, payload?: object) => Answer } {
  let now = 1_000_000;
  const sim = new RemoteSim({ clock: { now: () => (now += 10) }, random: seededRandom(1) });
  const call = (service: string, operation: string, key: string, orderId: string, payload: object = {}): Answer => {
    const response = sim.call({ service, operation, idempotencyKey: key, body: { orderId, payload } });
    if (response.kind !== 'answer') throw new Error(`expected an answer, got ${response.kind}`);
    return response;
  };
  return { sim, call };
}

describe('RemoteSim idempotency', () => {
  it('applies a charge once and answers with its result', () => {
    const { sim, call } = setup();
    const first = call('payment', 'charge', 'k-1', 'o-1', { amount: 42 });
    expect(first.status).toBe(200);
    expect(first.headers).toEqual({});
    expect(first.body).toEqual({
      effectId: 'eff-000001',
      service: 'payment',
      operation: 'charge',
      orderId: 'o-1',
      idempotencyKey: 'k-1',
      result: { chargeId: 'ch-000001', amount: 42 },
    });
    expect(sim.ledger()).toEqual([expect.objectContaining({ effectId: 'eff-000001', at: expect.any(Number) })]);
  });

  it('replays the first answer for a repeated key and records no new effect', () => {
    const { sim, call } = setup();
    const first = call('inventory', 'reserve', 'k-1', 'o-1');
    const again = call('inventory', 'reserve', 'k-1', 'o-1', { different: 'payload is not compared' });
    expect(again.status).toBe(200);
    expect(again.headers).toEqual({ 'Idempotent-Replayed': 'true' });
    expect(again.body).toEqual(first.body);
    expect(sim.ledger()).toHaveLength(1);
    expect(sim.stats().services.inventory.outcomes).toMatchObject({ ok: 1, replayed: 1 });
  });

  it('treats the same key on another service as a different call', () => {
    const { sim, call } = setup();
    call('payment', 'charge', 'k-1', 'o-1');
    const other = call('shipping', 'create', 'k-1', 'o-1');
    expect(other.status).toBe(200);
    expect(other.headers).toEqual({});
    expect(other.body).toMatchObject({ result: { trackingNumber: 'TRK000002' } });
    expect(sim.ledger().map((e) => e.service)).toEqual(['payment', 'shipping']);
  });

  it('answers 409 when a key comes back with another operation or order', () => {
    const { sim, call } = setup();
    call('payment', 'charge', 'k-1', 'o-1');
    const otherOperation = call('payment', 'refund', 'k-1', 'o-1');
    const otherOrder = call('payment', 'charge', 'k-1', 'o-2');
    expect(otherOperation.status).toBe(409);
    expect(otherOperation.body).toEqual({
      error:
        "Idempotency-Key 'k-1' was already used for payment.charge of order 'o-1'; this call is payment.refund of order 'o-1'. Use a distinct key per step and mode",
    });
    expect(otherOrder.status).toBe(409);
    expect(sim.ledger()).toHaveLength(1);
    expect(sim.stats().services.payment.outcomes.conflict).toBe(2);
  });

  it('refunds the latest charge of the same order when no original key is named', () => {
    const { call } = setup();
    call('payment', 'charge', 'charge-o-2', 'o-2', { amount: 1 });
    call('payment', 'charge', 'charge-o-1', 'o-1', { amount: 30 });
    const refund = call('payment', 'refund', 'refund-o-1', 'o-1');
    expect(refund.body).toMatchObject({
      result: { refundId: 're-000003', chargeId: 'ch-000002', amount: 30, originalEffectId: 'eff-000002' },
    });
  });

  it('references the effect of the original key when the compensation names it', () => {
    const { call } = setup();
    call('inventory', 'reserve', 'reserve-a', 'o-1');
    call('inventory', 'reserve', 'reserve-b', 'o-1');
    const release = call('inventory', 'release', 'release-a', 'o-1', { originalIdempotencyKey: 'reserve-a' });
    expect(release.body).toMatchObject({
      result: { releaseId: 'rel-000003', reservationId: 'rsv-000001', originalEffectId: 'eff-000001' },
    });
  });

  it('succeeds without an original when the forward operation never took effect', () => {
    const { sim, call } = setup();
    const cancel = call('shipping', 'cancel', 'cancel-o-9', 'o-9');
    expect(cancel.status).toBe(200);
    expect(cancel.body).toMatchObject({ result: { trackingNumber: null, originalEffectId: null } });
    const refund = call('payment', 'refund', 'refund-o-9', 'o-9');
    expect(refund.body).toMatchObject({ result: { chargeId: null, amount: 0, originalEffectId: null } });
    expect(sim.ledger()).toHaveLength(2);
  });

  it('ignores a named original that belongs to another order', () => {
    const { call } = setup();
    call('payment', 'charge', 'charge-o-1', 'o-1', { amount: 5 });
    const refund = call('payment', 'refund', 'refund-o-2', 'o-2', { originalIdempotencyKey: 'charge-o-1' });
    expect(refund.body).toMatchObject({ result: { chargeId: null, originalEffectId: null } });
  });

  it('clears the ledger and the counters, keeping ids unique afterwards', () => {
    const { sim, call } = setup();
    call('payment', 'charge', 'k-1', 'o-1');
    const sinceBefore = sim.stats().since;
    sim.resetLedger();
    expect(sim.ledger()).toEqual([]);
    expect(sim.stats().total).toBe(0);
    expect(sim.stats().since).toBeGreaterThan(sinceBefore);
    const again = call('payment', 'charge', 'k-1', 'o-1');
    expect(again.headers).toEqual({});
    expect(again.body).toMatchObject({ effectId: 'eff-000002' });
  });

  it('filters the ledger by service and order', () => {
    const { sim, call } = setup();
    call('payment', 'charge', 'a', 'o-1');
    call('shipping', 'create', 'b', 'o-1');
    call('payment', 'charge', 'c', 'o-2');
    expect(sim.ledger({ service: 'payment' }).map((e) => e.idempotencyKey)).toEqual(['a', 'c']);
    expect(sim.ledger({ orderId: 'o-1' }).map((e) => e.idempotencyKey)).toEqual(['a', 'b']);
  });
});
