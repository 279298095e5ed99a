import { z } from 'zod';
import { EpochMs } from './common';

/** Kinds of status the submitting application receives on its `replyTo` queue. */
export const StatusKind = z.enum([
  'Received',
  'Duplicate',
  'Rejected',
  'Processing',
  'StepCompleted',
  /** A step (or every member of a parallel group) whose condition was false: never run, never undone. */
  'StepSkipped',
  'Processed',
  'Failed',
  'Compensated',
  'Canceled',
]);
export type StatusKind = z.infer<typeof StatusKind>;

/**
 * Which status events an order sends its application (decision 59). `all`: every one, including
 * the progress events `Processing`, `StepCompleted` and `StepSkipped`. `final`: every status but those three:
 * `Received` (or `Duplicate`, `Rejected`), then the outcome (`Processed`, `Compensated`,
 * `Canceled`, or `Failed` when it waits for an operator). An order asks for one on submission;
 * an order that names none gets `all`.
 */
export const StatusEvents = z.enum(['all', 'final']);
export type StatusEvents = z.infer<typeof StatusEvents>;

/** Statuses that only report progress: sent to an order only when it asked for `all` status events. */
export const PROGRESS_STATUSES: readonly StatusKind[] = ['Processing', 'StepCompleted', 'StepSkipped'];

/** Whether an order that asked for `choice` (absent: `all`) is sent a `status` event. */
export function sendsStatus(choice: StatusEvents | undefined, status: StatusKind): boolean {
  return choice !== 'final' || !PROGRESS_STATUSES.includes(status);
}

/** One status message to the application, correlated by `orderId`. */
export const StatusEvent = z.object({
  schemaVersion: z.literal(1),
  /**
   * Deterministic id of this event: the same on every redelivery of it, so a receiver can
   * deduplicate without knowing BullMQ job ids. Optional: events sent before it existed have none.
   */
  eventId: z.string().optional(),
  /** Absent only when a rejected message had no readable orderId. */
  orderId: z.string().optional(),
  processId: z.string().optional(),
  status: StatusKind,
  step: z.string().optional(),
  reason: z.string().optional(),
  at: EpochMs,
});
export type StatusEvent = z.infer<typeof StatusEvent>;
