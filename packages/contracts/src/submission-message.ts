import { z } from 'zod';
import { JsonObject, OrderId, ReplyTo } from './common';
import { StatusEvents } from './status-event';
import { MAX_PAYLOAD_DEPTH, nestsDeeperThan } from './json-depth';
import { Traceparent } from './traceparent';

/** Largest accepted order payload, serialised as JSON. Bigger orders are rejected, not truncated. */
export const MAX_PAYLOAD_BYTES = 64 * 1024;

/** What an application puts on the `submission` queue to start a task. */
export const SubmissionMessage = z.object({
  schemaVersion: z.literal(1),
  orderId: OrderId,
  /** Name of a registered workflow, e.g. `order-fulfilment`. */
  workflow: z.string().min(1).max(100),
  /** Pin a workflow version; the newest registered version when absent. */
  workflowVersion: z.number().int().positive().optional(),
  /** The order itself, handed to every step. */
  payload: JsonObject.superRefine((p, ctx) => {
    // Depth first: measuring the size of a payload nested thousands deep would overflow the stack.
    if (nestsDeeperThan(p, MAX_PAYLOAD_DEPTH)) {
      ctx.addIssue({ code: 'custom', message: `payload must nest at most ${MAX_PAYLOAD_DEPTH} levels of objects and arrays (MongoDB stores at most 100)` });
    } else if (Buffer.byteLength(JSON.stringify(p)) > MAX_PAYLOAD_BYTES) {
      ctx.addIssue({ code: 'custom', message: `payload must be at most ${MAX_PAYLOAD_BYTES} bytes as JSON` });
    }
  }),
  /** Queue that receives this order's status events. */
  replyTo: ReplyTo.optional(),
  /**
   * Which status events to send to `replyTo`: `final` leaves out `Processing` and `StepCompleted`
   * (see {@link StatusEvents}). Absent means `all`, as for messages sent before it existed. Not
   * part of the fingerprint: it changes what is reported, not the order.
   */
  statusEvents: StatusEvents.optional(),
  /** The sender's trace context: the order's trace continues it. Not part of the fingerprint. */
  traceparent: Traceparent,
});
export type SubmissionMessage = z.infer<typeof SubmissionMessage>;
