import type { StepDefinition, WorkflowDefinition } from './workflow-definition';

/** A workflow of task steps only: its `steps` read as tasks without narrowing each entry. */
export type TaskWorkflowDefinition = Omit<WorkflowDefinition, 'steps'> & { steps: StepDefinition[] };

const retry = { maxAttempts: 5, initialBackoffMs: 50, maxBackoffMs: 1000, multiplier: 2, jitter: 0.5 };

/**
 * The demo workflow: reserve stock, charge the card, create the shipment; undone by release,
 * refund and cancel. A permanent refusal compensates; repeated timeouts compensate too.
 */
export const orderFulfilmentV1: TaskWorkflowDefinition = {
  name: 'order-fulfilment',
  version: 1,
  steps: [
    { name: 'reserve-inventory', agent: 'inventory', operation: 'reserve', compensation: 'release', completeByMs: 5000, retry },
    { name: 'charge-payment', agent: 'payment', operation: 'charge', compensation: 'refund', completeByMs: 5000, retry },
    { name: 'create-shipment', agent: 'shipping', operation: 'create', compensation: 'cancel', completeByMs: 5000, retry },
  ],
  failureThreshold: 3,
  onThreshold: { policy: 'compensate' },
  onPermanentFailure: 'compensate',
  retentionMs: 7 * 24 * 3600 * 1000,
};

/** The same steps, but a step that keeps timing out stops in Error for an operator instead of compensating. */
export const orderFulfilmentManualV1: TaskWorkflowDefinition = {
  ...orderFulfilmentV1,
  name: 'order-fulfilment-manual',
  onThreshold: { policy: 'error' },
};

/** Every workflow this build ships. */
export const builtInWorkflows: readonly WorkflowDefinition[] = [orderFulfilmentV1, orderFulfilmentManualV1];
