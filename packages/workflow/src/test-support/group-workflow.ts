import type { WorkflowDefinition } from '../workflow-definition';

const retry = { maxAttempts: 3, initialBackoffMs: 50, maxBackoffMs: 500, multiplier: 2, jitter: 0.5 };

/**
 * Reserve stock, then charge the card and create the shipment at the same time (a parallel
 * group, different complete-by times), then send a mail (nothing to undo). Threshold 3, then compensate.
 */
export const groupFulfilment: WorkflowDefinition = {
  name: 'group-fulfilment',
  version: 1,
  steps: [
    { name: 'reserve-inventory', agent: 'inventory', operation: 'reserve', compensation: 'release', completeByMs: 5000, retry },
    {
      name: 'charge-and-ship',
      parallel: [
        { name: 'charge-payment', agent: 'payment', operation: 'charge', compensation: 'refund', completeByMs: 4000, retry },
        { name: 'create-shipment', agent: 'shipping', operation: 'create', compensation: 'cancel', completeByMs: 6000, retry },
      ],
    },
    { name: 'send-mail', agent: 'mailer', operation: 'send', compensation: null, completeByMs: 5000, retry },
  ],
  failureThreshold: 3,
  onThreshold: { policy: 'compensate' },
  onPermanentFailure: 'compensate',
  retentionMs: 24 * 3600 * 1000,
};

/** The same, but a refusal or the threshold stops in Error for an operator. */
export const groupFulfilmentManual: WorkflowDefinition = {
  ...groupFulfilment,
  name: 'group-fulfilment-manual',
  onThreshold: { policy: 'error' },
  onPermanentFailure: 'error',
};
