import { z } from 'zod';

/**
 * Body of `POST /services/:service/:operation`. Extra fields are allowed so agents can send
 * context (step, attempt) without the simulator rejecting it.
 */
export const RemoteCallBody = z.object({
  orderId: z.string().min(1),
  payload: z.record(z.unknown()),
  /**
   * Results of the order's earlier steps, keyed by step name (`AgentRequest.results`), recorded
   * as the effect's `inputs` so a test can see what a step was given. Optional: callers that
   * send only `{ orderId, payload }` (every agent so far) are answered as before.
   */
  results: z.record(z.record(z.unknown())).optional(),
  /**
   * Which dispatch sent the call, recorded on its arrival: the workflow step, the process attempt
   * (fencing token) and the agent's try of that dispatch. Optional: only a mapping that sends them
   * (remote-sim's own does) gets them recorded.
   */
  step: z.string().min(1).optional(),
  attempt: z.number().int().min(0).optional(),
  try: z.number().int().min(1).optional(),
});
export type RemoteCallBody = z.infer<typeof RemoteCallBody>;

/** A call as the HTTP layer hands it to the simulator. */
export interface RemoteCallRequest {
  /** Path segment; unknown services answer 404. */
  service: string;
  /** Path segment; unknown operations answer 404. */
  operation: string;
  /** The `Idempotency-Key` header, undefined when absent. */
  idempotencyKey: string | undefined;
  /**
   * The `Compensates-Idempotency-Key` header, undefined when absent: on an undo, the idempotency
   * key of the forward call it compensates. Wins over `payload.originalIdempotencyKey`, so a remote
   * need not parse the payload to learn it. Optional so callers that never send it need not say so.
   */
  compensatesKey?: string | undefined;
  /** Parsed JSON body, or a `MalformedJson` when it did not parse. */
  body: unknown;
}
