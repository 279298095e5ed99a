import { RemoteSimConfig } from './remote-sim-config';
import { RemoteSim } from './remote-sim';
import { seededRandom } from './seeded-random';
import { routeRequest, type SimRequest } from './sim-router';
import type { SimResponse } from './sim-response';

type Answer = Extract<SimResponse, { kind: 'answer' }>;

function setup(mode: 'keyless' | 'plain'): { sim: RemoteSim; route: (method: string, url: string, extra?: Partial<SimRequest>) => Answer } {
  let now = 1_000_000;
  const sim = new RemoteSim({ clock: { now: () => (now += 10) }, random: seededRandom(3), mode });
  const route = (method: string, url: string, extra: Partial<SimRequest> = {}): Answer => {
    const response = routeRequest(sim, { method, url, idempotencyKey: undefined, body: undefined, ...extra });
    if (response.kind !== 'answer') throw new Error(`expected an answer, got ${response.kind}`);
    return response;
  };
  return { sim, route };
}

const charge = { idempotencyKey: 'p-1/charge-payment/forward', body: { orderId: 'o-1', payload: { amount: 5 } } };

describe('remote-sim in the keyless mode (a remote that ignores idempotency keys)', () => {
  it('is a mode REMOTE_SIM_MODE accepts', () => {
    expect(RemoteSimConfig.parse({ REMOTE_SIM_MODE: 'keyless' }).REMOTE_SIM_MODE).toBe('keyless');
  });

  it('applies a repeated key again: a second effect, not a replay', () => {
    const { sim, route } = setup('keyless');
    const first = route('POST', '/services/payment/charge', charge);
    const again = route('POST', '/services/payment/charge', charge);
    expect(again.status).toBe(200);
    expect(again.headers).toEqual({});
    expect(again.body).toMatchObject({ effectId: 'eff-000002', idempotencyKey: charge.idempotencyKey, result: { chargeId: 'ch-000002' } });
    expect(first.body).toMatchObject({ effectId: 'eff-000001' });
    expect(sim.ledger().map((e) => e.effectId)).toEqual(['eff-000001', 'eff-000002']);
  });

  it('applies a lost reply\'s call again when it is retried (the duplicate the HTTP agent\'s lookup prevents)', () => {
    const { sim, route } = setup('keyless');
    route('PUT', '/admin/faults/payment', { body: { lostReplyRate: 1 } });
    expect(route('POST', '/services/payment/charge', charge).status).toBe(503);
    route('DELETE', '/admin/faults/payment');
    expect(route('POST', '/services/payment/charge', charge).status).toBe(200);
    expect(sim.ledger({ orderId: 'o-1' })).toHaveLength(2);
  });

  it('lists the effects made under a key: GET /ledger?idempotencyKey=', () => {
    const { route } = setup('keyless');
    route('POST', '/services/payment/charge', charge);
    route('POST', '/services/payment/charge', { ...charge, idempotencyKey: 'p-2/charge-payment/forward', body: { orderId: 'o-2', payload: {} } });
    route('POST', '/services/shipping/create', charge);
    const listed = route('GET', `/ledger?service=payment&idempotencyKey=${encodeURIComponent(charge.idempotencyKey)}`);
    expect(listed.status).toBe(200);
    expect((listed.body as { effects: unknown[] }).effects).toEqual([
      expect.objectContaining({ effectId: 'eff-000001', service: 'payment', idempotencyKey: charge.idempotencyKey, result: { chargeId: 'ch-000001', amount: 5 } }),
    ]);
    expect(route('GET', '/ledger?idempotencyKey=nothing-under-it').body).toEqual({ effects: [] });
  });

  it('deletes one effect by its id, as a record store does: DELETE /ledger/:effectId, then 404', () => {
    const { sim, route } = setup('keyless');
    route('POST', '/services/payment/charge', charge);
    route('POST', '/services/payment/charge', { ...charge, idempotencyKey: 'p-2/charge-payment/forward', body: { orderId: 'o-2', payload: {} } });
    const deleted = route('DELETE', '/ledger/eff-000001');
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ deleted: { effectId: 'eff-000001', idempotencyKey: charge.idempotencyKey } });
    expect(sim.ledger().map((e) => e.effectId)).toEqual(['eff-000002']);
    expect(route('GET', `/ledger?idempotencyKey=${encodeURIComponent(charge.idempotencyKey)}`).body).toEqual({ effects: [] });
    expect(route('DELETE', '/ledger/eff-000001').status).toBe(404);
    expect(route('GET', '/ledger/eff-000002').status).toBe(405);
  });

  it('keeps no tombstones, as the plain mode: a forward call after its undo is applied', () => {
    const { sim, route } = setup('keyless');
    route('POST', '/services/payment/refund', { idempotencyKey: 'p-1/charge-payment/compensate', compensatesKey: charge.idempotencyKey, body: { orderId: 'o-1', payload: {} } });
    expect(route('POST', '/services/payment/charge', charge).status).toBe(200);
    expect(sim.ledger().map((e) => e.operation)).toEqual(['refund', 'charge']);
  });

  it('still replays a repeated key in the plain mode (the keyless mode is the only one without replay)', () => {
    const { sim, route } = setup('plain');
    route('POST', '/services/payment/charge', charge);
    expect(route('POST', '/services/payment/charge', charge).headers).toEqual({ 'Idempotent-Replayed': 'true' });
    expect(sim.ledger()).toHaveLength(1);
  });
});
