import { SCHEMA_VERSION, type SubmissionMessage } from '@sas/contracts';

const SKUS = ['espresso-machine', 'grinder', 'kettle', 'milk-jug', 'scale'];

/** `count` plausible orders for the demo, deterministic for a run id. */
export function demoOrders(runId: string, count: number, replyTo: string): SubmissionMessage[] {
  return Array.from({ length: count }, (_, i) => ({
    schemaVersion: SCHEMA_VERSION,
    orderId: `demo-${runId}-${String(i + 1).padStart(3, '0')}`,
    workflow: 'order-fulfilment',
    payload: {
      sku: SKUS[i % SKUS.length] ?? 'scale',
      quantity: 1 + (i % 3),
      amount: 1999 + 250 * (i % 7),
      customer: `customer-${1 + (i % 11)}`,
    },
    replyTo,
  }));
}
