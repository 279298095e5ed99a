/**
 * The application's side of a Scheduler Agent Supervisor system: submit orders, follow their
 * status events (each once), send operator commands.
 *
 * @example
 * ```ts
 * import { SasClient } from '@sas/client';
 * const client = new SasClient({ redisUrl: 'redis://127.0.0.1:6379', replyTo: 'shop.status' });
 * await client.submit({ orderId: 'order-1', workflow: 'order-fulfilment', payload: { sku: 'kettle', quantity: 1, amount: 2500 } });
 * const event = await client.waitFor('order-1', { until: ['Processed', 'Compensated', 'Duplicate', 'Rejected'] });
 * await client.close();
 * ```
 */
export * from './sas-client';
export * from './submission-job-id';
export * from './request-reply';
export * from './redis-connection';
export * from './job-options';
export * from './errors/invalid-order-error';
export * from './errors/send-timeout-error';
export * from './errors/status-timeout-error';
export * from './errors/no-answer-error';
export * from './errors/client-closed-error';
export * from './errors/invalid-signal-error';
export * from './send-signal';
export type { StatusEvent, StatusKind, SubmissionMessage, OperatorCommandResult, SignalResult, SignalOutcome } from '@sas/contracts';
export type { KnownWorkflow } from './payload-checks';
