import { z } from 'zod';
import { EpochMs } from './common';

/** Kinds of status the submitting application receives on its `replyTo` queue. */
export const StatusKind = z.enum([
  'Received',
  'Duplicate',
  'Rejected',
  'Processing',
  'StepCompleted',
  'Processed',
  'Failed',
  'Compensated',
  'Canceled',
]);
export type StatusKind = z.infer<typeof StatusKind>;

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
