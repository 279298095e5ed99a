import type { LedgerArrival } from './ledger-checks';

/**
 * Calls of `orderIds` that reached `service` at all (whatever became of them), e.g. a day trip's
 * call to the hotel: a step skipped by its condition must never be called. One sentence per call.
 */
export function callsTo(arrivals: readonly LedgerArrival[], orderIds: readonly string[], service: string): string[] {
  const orders = new Set(orderIds);
  return arrivals
    .filter((a) => orders.has(a.orderId) && a.service === service)
    .map((a) => `order ${a.orderId}: ${a.service}.${a.operation} '${a.idempotencyKey}' arrived (${a.arrivalId} at ${a.at}) although its step was to be skipped`);
}
