import { noFaults } from './fault-settings';
import { MalformedJson } from './malformed-json';
import { RemoteSim } from './remote-sim';
import { seededRandom } from './seeded-random';
import { routeRequest, type SimRequest } from './sim-router';
import type { SimResponse } from './sim-response';

function setup(): (method: string, url: string, extra?: Partial<SimRequest>) => SimResponse {
  const sim = new RemoteSim({ clock: { now: () => 50_000 }, random: seededRandom(9) });
  return (method, url, extra = {}) => routeRequest(sim, { method, url, idempotencyKey: undefined, body: undefined, ...extra });
}

function charge(route: ReturnType<typeof setup>, key: string, orderId: string, service = 'payment', operation = 'charge'): SimResponse {
  return route('POST', `/services/${service}/${operation}`, { idempotencyKey: key, body: { orderId, payload: {} } });
}

describe('routeRequest', () => {
  it('answers /healthz', () => {
    expect(setup()('GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('routes service calls to the simulator', () => {
    const route = setup();
    expect(charge(route, 'k-1', 'o-1')).toMatchObject({ status: 200, body: { operation: 'charge', orderId: 'o-1' } });
  });

  it('answers 405 with Allow to a method a route does not support', () => {
    expect(setup()('GET', '/services/payment/charge')).toEqual({
      kind: 'answer',
      status: 405,
      headers: { Allow: 'POST' },
      body: { error: 'GET is not supported on /services/payment/charge; use POST' },
      delayMs: 0,
    });
  });

  it('answers 404 to an unknown path, listing the routes', () => {
    expect(setup()('GET', '/nope/a/b/c')).toMatchObject({
      status: 404,
      body: { error: 'No route for GET /nope/a/b/c; use POST /services/:service/:operation, /admin/faults[/:service], POST /admin/release/:service, /ledger, DELETE /ledger/:effectId, /arrivals, /stats or /healthz' },
    });
  });

  it('sets, shows and resets the faults of one service', () => {
    const route = setup();
    expect(route('PUT', '/admin/faults/shipping', { body: { outageMs: 2_000 } })).toMatchObject({
      status: 200,
      body: { service: 'shipping', faults: { outageUntil: 52_000 } },
    });
    expect(route('GET', '/admin/faults')).toMatchObject({
      body: { faults: { shipping: { outageUntil: 52_000 }, payment: noFaults() } },
    });
    expect(route('DELETE', '/admin/faults/shipping')).toMatchObject({ status: 200, body: { faults: noFaults() } });
  });

  it('treats an empty fault body as "no faults"', () => {
    const route = setup();
    route('PUT', '/admin/faults/payment', { body: { hang: true } });
    expect(route('PUT', '/admin/faults/payment', { body: undefined })).toMatchObject({ status: 200, body: { faults: noFaults() } });
  });

  it('resets the faults of every service at once', () => {
    const route = setup();
    route('PUT', '/admin/faults/payment', { body: { errorRate: 1 } });
    route('PUT', '/admin/faults/inventory', { body: { hang: true } });
    route('DELETE', '/admin/faults');
    expect(route('GET', '/admin/faults')).toMatchObject({
      body: { faults: { payment: noFaults(), inventory: noFaults(), shipping: noFaults(), flight: noFaults(), hotel: noFaults() } },
    });
  });

  it('answers 400 to invalid fault bodies and 404 to unknown services', () => {
    const route = setup();
    expect(route('PUT', '/admin/faults/payment', { body: { errorRate: 2 } })).toMatchObject({
      status: 400,
      body: { error: 'Invalid faults for payment: errorRate: Number must be less than or equal to 1' },
    });
    expect(route('PUT', '/admin/faults/payment', { body: new MalformedJson('bad') })).toMatchObject({
      status: 400,
      body: { error: 'Fault body is not valid JSON (bad); send e.g. {"errorRate": 0.5}' },
    });
    expect(route('PUT', '/admin/faults/billing', { body: {} })).toMatchObject({ status: 404 });
    expect(route('GET', '/admin/faults')).toMatchObject({ body: { faults: { payment: noFaults() } } });
  });

  it('lists the ledger filtered by query, and rejects an unknown service filter', () => {
    const route = setup();
    charge(route, 'a', 'o-1');
    charge(route, 'b', 'o-2');
    charge(route, 'c', 'o-1', 'inventory', 'reserve');
    const keys = (r: SimResponse): unknown =>
      r.kind === 'answer' ? (r.body as { effects: Array<{ idempotencyKey: string }> }).effects.map((e) => e.idempotencyKey) : r;
    expect(keys(route('GET', '/ledger'))).toEqual(['a', 'b', 'c']);
    expect(keys(route('GET', '/ledger?orderId=o-1'))).toEqual(['a', 'c']);
    expect(keys(route('GET', '/ledger?service=payment&orderId=o-1'))).toEqual(['a']);
    expect(route('GET', '/ledger?service=billing')).toMatchObject({
      status: 400,
      body: { error: "Unknown service 'billing' in the ledger filter; use one of: payment, inventory, shipping, flight, hotel" },
    });
  });

  it('clears ledger and stats on DELETE /ledger', () => {
    const route = setup();
    charge(route, 'a', 'o-1');
    expect(route('DELETE', '/ledger')).toMatchObject({ status: 200, body: { effects: [] } });
    expect(route('GET', '/ledger')).toMatchObject({ body: { effects: [] } });
    expect(route('GET', '/stats')).toMatchObject({ status: 200, body: { total: 0, since: 50_000 } });
  });

  it('shows stats of calls received', () => {
    const route = setup();
    charge(route, 'a', 'o-1');
    charge(route, 'a', 'o-1');
    expect(route('GET', '/stats')).toMatchObject({ body: { total: 2, services: { payment: { outcomes: { ok: 1, replayed: 1 } } } } });
  });

  it('decodes path segments and survives malformed escapes', () => {
    const route = setup();
    expect(route('PUT', '/admin/faults/%70ayment', { body: { hang: true } })).toMatchObject({ status: 200, body: { service: 'payment' } });
    expect(route('PUT', '/admin/faults/%E0%A4%A', { body: {} })).toMatchObject({ status: 404 });
  });
});
