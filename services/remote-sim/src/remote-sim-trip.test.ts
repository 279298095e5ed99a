import { RemoteSim } from './remote-sim';
import { seededRandom } from './seeded-random';
import type { SimResponse } from './sim-response';

type Answer = Extract<SimResponse, { kind: 'answer' }>;

// flight and hotel serve the trip-booking example (docs/flows.md): a booking, undone by its cancel.
describe('RemoteSim trip services', () => {
  let now = 1_000_000;
  const sim = new RemoteSim({ clock: { now: () => (now += 10) }, random: seededRandom(1) });
  const call = (service: string, operation: string, key: string, compensatesKey?: string): Answer => {
    const response = sim.call({ service, operation, idempotencyKey: key, ...(compensatesKey ? { compensatesKey } : {}), body: { orderId: 'trip-1', payload: {} } });
    if (response.kind !== 'answer') throw new Error(`expected an answer, got ${response.kind}`);
    return response;
  };

  it.each(['flight', 'hotel'])('%s books, and its cancel names the booking it undoes', (service) => {
    const booked = call(service, 'book', `${service}-k1`);
    expect(booked.status).toBe(200);
    const bookingId = (booked.body as { result: { bookingId: string } }).result.bookingId;
    expect(bookingId).toMatch(/^bk-/);
    const cancelled = call(service, 'cancel', `${service}-k2`, `${service}-k1`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ result: { bookingId, originalEffectId: (booked.body as { effectId: string }).effectId } });
  });

  it('lists flight and hotel with their operations in its stats', () => {
    expect(Object.keys(sim.stats().services)).toEqual(['payment', 'inventory', 'shipping', 'flight', 'hotel']);
    expect(Object.keys(sim.stats().services.hotel.operations)).toEqual(['book', 'cancel']);
  });
});
