import type { LedgerArrival } from './ledger-checks';
import { callsTo } from './trip-checks';

const arrival = (orderId: string, service: string, operation: string): LedgerArrival =>
  ({ arrivalId: `arr-${orderId}-${service}`, service, operation, orderId, idempotencyKey: `${orderId}/${service}/forward`, mode: 'forward', at: 1, outcome: 'ok', applied: true, attempt: 1, try: 1 }) as unknown as LedgerArrival;

describe('callsTo', () => {
  it('names each call of the listed orders to the service, and nothing else', () => {
    const arrivals = [arrival('day-1', 'flight', 'book'), arrival('day-1', 'hotel', 'book'), arrival('trip-1', 'hotel', 'book')];
    expect(callsTo(arrivals, ['day-1'], 'hotel')).toEqual([expect.stringContaining("order day-1: hotel.book 'day-1/hotel/forward' arrived")]);
    expect(callsTo(arrivals, ['day-1'], 'payment')).toEqual([]);
    expect(callsTo(arrivals, [], 'hotel')).toEqual([]);
  });
});
