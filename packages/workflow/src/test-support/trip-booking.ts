import type { WorkflowDefinition } from '../workflow-definition';

const retry = { maxAttempts: 3, initialBackoffMs: 50, maxBackoffMs: 500, multiplier: 2, jitter: 0.5 };

/**
 * The trip booking: flight and hotel booked in parallel (the hotel skipped for a day
 * trip), then the customer's confirmation awaited for a day; no answer undoes both bookings.
 */
export const tripBooking: WorkflowDefinition = {
  name: 'trip-booking',
  version: 1,
  steps: [
    { name: 'check-customer', agent: 'crm', operation: 'check', compensation: null, completeByMs: 5000, retry },
    {
      name: 'book-travel',
      parallel: [
        { name: 'book-flight', agent: 'flights', operation: 'book', compensation: 'cancel', completeByMs: 5000, retry },
        { name: 'book-car', agent: 'cars', operation: 'book', compensation: 'cancel', completeByMs: 3000, retry },
      ],
    },
    {
      name: 'book-hotel',
      agent: 'hotels',
      operation: 'book',
      compensation: 'cancel',
      completeByMs: 5000,
      retry,
      condition: 'payload.nights > 0',
    },
    { name: 'confirm', signal: { name: 'customer-confirmed', timeoutMs: 24 * 3600 * 1000, onTimeout: 'compensate' } },
    { name: 'cool-off', wait: { ms: 60_000 } },
    { name: 'charge', agent: 'payment', operation: 'charge', compensation: 'refund', completeByMs: 5000, retry },
  ],
  failureThreshold: 3,
  onThreshold: { policy: 'compensate' },
  onPermanentFailure: 'compensate',
  retentionMs: 24 * 3600 * 1000,
};
