import { RemoteSim } from './remote-sim';
import type { RemoteCallRequest } from './remote-call-body';
import { seededRandom } from './seeded-random';

function setup(): RemoteSim {
  return new RemoteSim({ clock: { now: () => 7_000 }, random: seededRandom(5) });
}

const reservation = { 'reserve-inventory': { reservationId: 'rsv-000001' } };

function ship(body: unknown, idempotencyKey = 'p-1/create-shipment'): RemoteCallRequest {
  return { service: 'shipping', operation: 'create', idempotencyKey, body };
}

describe('when a call carries the results of earlier steps', () => {
  it('records them as the effect\'s inputs, so a test can see what the step was given', () => {
    const sim = setup();
    expect(sim.call(ship({ orderId: 'o-1', payload: { sku: 'kettle' }, results: reservation }))).toMatchObject({ status: 200 });
    expect(sim.ledger()).toEqual([expect.objectContaining({ operation: 'create', orderId: 'o-1', inputs: reservation })]);
  });

  it('records an empty results object as empty inputs: the step was told there was nothing before it', () => {
    const sim = setup();
    sim.call(ship({ orderId: 'o-1', payload: {}, results: {} }));
    expect(sim.ledger()[0]?.inputs).toEqual({});
  });

  it('keeps the inputs of the first call when the key is replayed with other results', () => {
    const sim = setup();
    sim.call(ship({ orderId: 'o-1', payload: {}, results: reservation }));
    const again = sim.call(ship({ orderId: 'o-1', payload: {}, results: { other: { x: 1 } } }));
    expect(again).toMatchObject({ status: 200, headers: { 'Idempotent-Replayed': 'true' } });
    expect(sim.ledger().map((e) => e.inputs)).toEqual([reservation]);
  });

  it('answers 400 when results is not an object of objects, and applies nothing', () => {
    const sim = setup();
    const response = sim.call(ship({ orderId: 'o-1', payload: {}, results: { 'reserve-inventory': 'rsv-1' } }));
    expect(response).toMatchObject({
      status: 400,
      body: { error: 'Invalid body: results.reserve-inventory: Expected object, received string; send {"orderId": string, "payload": object}' },
    });
    expect(sim.ledger()).toEqual([]);
  });

  it('keeps a copy: changing the caller\'s object afterwards does not change the ledger', () => {
    const sim = setup();
    const results = { 'reserve-inventory': { lines: [{ sku: 'kettle' }] } };
    sim.call(ship({ orderId: 'o-1', payload: {}, results }));
    const [line] = results['reserve-inventory'].lines;
    if (line) line.sku = 'changed';
    expect(sim.ledger()[0]?.inputs).toEqual({ 'reserve-inventory': { lines: [{ sku: 'kettle' }] } });
  });
});

describe('when a call carries no results (callers from before results existed)', () => {
  it('answers as before and records no inputs field at all', () => {
    const sim = setup();
    expect(sim.call(ship({ orderId: 'o-1', payload: {} }))).toMatchObject({ status: 200 });
    const [effect] = sim.ledger();
    expect(effect).toBeDefined();
    expect(effect && 'inputs' in effect).toBe(false);
  });
});
