import { z } from 'zod';
import { EpochMs, JsonObject, OrderId } from './common';
import { ProcessMode } from './process-state';
import { RetryPolicy } from './retry-policy';
import { Traceparent } from './traceparent';

/** What a scheduler sends to `agent.<agent>.requests` for one step (or one compensation). */
export const AgentRequest = z.object({
  schemaVersion: z.literal(1),
  processId: z.string().min(1),
  orderId: OrderId,
  /** Step name, unique within its workflow. */
  step: z.string().min(1),
  stepIndex: z.number().int().nonnegative(),
  /** `forward` runs the step's operation, `compensate` its compensation. */
  mode: ProcessMode,
  agent: z.string().min(1),
  /** Operation on the remote service, e.g. `reserve`. */
  operation: z.string().min(1),
  /** Fencing token: a reply is applied only if this is still the process's current attempt. */
  attempt: z.number().int().positive(),
  /** Same for every attempt of this step in this mode, so the remote applies its effect once. */
  idempotencyKey: z.string().min(1),
  /** After this instant the agent stops silently: the supervisor owns the step from then on. */
  completeBy: EpochMs,
  payload: JsonObject,
  /**
   * Results of the earlier steps of this process that returned one, keyed by step name: a forward
   * step sees the completed steps before it, a compensation the steps before the one it undoes
   * (the undone step's own result is in `compensates.result`). Each is at most
   * MAX_STEP_RESULT_BYTES. Optional: requests from older schedulers carry none.
   */
  results: z.record(z.string(), JsonObject).optional(),
  /** The step's retry policy for transient faults; the agent's defaults when absent. */
  retry: RetryPolicy.optional(),
  /** Queue the agent answers on. */
  replyTo: z.string().min(1),
  /**
   * Set on a compensation: the forward step it undoes. The remote is told the forward call's
   * idempotency key so it can refuse that forward call if it arrives after its undo (a request
   * still queued or retrying when an operator canceled). Optional: requests already in flight
   * from older schedulers have none, and their remotes fall back on the order.
   */
  compensates: z
    .object({
      idempotencyKey: z.string().min(1),
      /** What the forward step returned, or null when its outcome is unknown (it timed out). */
      result: JsonObject.nullable(),
      /**
       * The latest complete-by of the forward call's dispatches: no agent starts or waits for a try
       * of it after this instant, so an undo that finds no trace of it then may take it as never
       * applied (the HTTP agent's `forwardLookup`). Optional: schedulers before it send none, and
       * absent, "not found" can never be trusted.
       */
      completeBy: EpochMs.optional(),
    })
    .optional(),
  /** The scheduler's dispatch span: the agent's attempt span is its child. */
  traceparent: Traceparent,
});
export type AgentRequest = z.infer<typeof AgentRequest>;
