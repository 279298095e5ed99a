import { MalformedJson } from './malformed-json';
import { RemoteSim } from './remote-sim';
import type { RemoteCallRequest } from './remote-call-body';
import { seededRandom } from './seeded-random';

function setup(): RemoteSim {
  return new RemoteSim({ clock: { now: () => 5_000 }, random: seededRandom(3) });
}

const good: RemoteCallRequest = { service: 'payment', operation: 'charge', idempotencyKey: 'k-1', body: { orderId: 'o-1', payload: {} } };

describe('RemoteSim bad input', () => {
  it.each<[string, Partial<RemoteCallRequest>, string]>([
    [
      'a missing Idempotency-Key',
      { idempotencyKey: undefined },
      'Missing Idempotency-Key header; send one stable key per step so retries cannot apply the effect twice',
    ],
    [
      'a blank Idempotency-Key',
      { idempotencyKey: '  ' },
      'Missing Idempotency-Key header; send one stable key per step so retries cannot apply the effect twice',
    ],
    ['an overlong Idempotency-Key', { idempotencyKey: 'k'.repeat(256) }, 'Idempotency-Key is 256 characters; use at most 255'],
    [
      'a body that is not JSON',
      { body: new MalformedJson('Unexpected token') },
      'Body is not valid JSON (Unexpected token); send {"orderId": string, "payload": object}',
    ],
    ['an empty body', { body: undefined }, 'Invalid body: (body): Required; send {"orderId": string, "payload": object}'],
    [
      'a missing orderId',
      { body: { payload: {} } },
      'Invalid body: orderId: Required; send {"orderId": string, "payload": object}',
    ],
    [
      'a payload that is not an object',
      { body: { orderId: 'o-1', payload: [1] } },
      'Invalid body: payload: Expected object, received array; send {"orderId": string, "payload": object}',
    ],
  ])('answers 400 to %s, applies nothing and counts a bad request', (_name, change, error) => {
    const sim = setup();
    expect(sim.call({ ...good, ...change })).toEqual({ kind: 'answer', status: 400, headers: {}, body: { error }, delayMs: 0 });
    expect(sim.ledger()).toEqual([]);
    expect(sim.stats().services.payment.operations['charge']?.['bad-request']).toBe(1);
  });

  it('answers 404 to an unknown service, naming the known ones', () => {
    const sim = setup();
    expect(sim.call({ ...good, service: 'billing' })).toMatchObject({
      status: 404,
      body: { error: "Unknown service 'billing'; use one of: payment, inventory, shipping, flight, hotel" },
    });
    expect(sim.stats().total).toBe(0);
  });

  it("answers 404 to an operation of another service, naming the service's own", () => {
    const sim = setup();
    expect(sim.call({ ...good, operation: 'reserve' })).toMatchObject({
      status: 404,
      body: { error: "payment has no operation 'reserve'; use charge or refund" },
    });
  });

  it('checks bad input before faults, so a malformed call never consumes the dice', () => {
    const sim = setup();
    sim.setFaults('payment', {
      errorRate: 1,
      lostReplyRate: 0,
      latencyMs: 0,
      hang: true,
      outageUntil: null,
      permanentFailOrders: [],
      permanentFailOperations: [],
      holdOperations: [],
    });
    expect(sim.call({ ...good, idempotencyKey: undefined })).toMatchObject({ status: 400 });
  });
});
