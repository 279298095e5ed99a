import type { Logger } from 'pino';
import type { JsonObject, ProcessMode } from '@sas/contracts';

/**
 * One call of an operation handler: everything the handler needs to make the remote call once.
 * The library builds it from the scheduler's request for every try; only `tryNumber` changes
 * between tries of one request.
 *
 * @typeParam Input - the payload after the operation's `input` schema parsed it (the raw payload
 * when the operation has none).
 */
export interface AgentCall<Input = JsonObject> {
  /** The agent (remote service) this call is for, e.g. `payment`. */
  agent: string;
  /** The operation, e.g. `charge` (forward) or `refund` (its compensation). */
  operation: string;
  processId: string;
  orderId: string;
  /** The workflow step, e.g. `charge-payment`. */
  step: string;
  /** `forward` runs the step, `compensate` undoes it. */
  mode: ProcessMode;
  /** The request's payload as the scheduler sent it. */
  payload: JsonObject;
  /** The payload as the operation's `input` schema parsed it; the payload itself without a schema. */
  input: Input;
  /** Results of the steps before this one, keyed by step name (`{}` when none or from older schedulers). */
  results: Readonly<Record<string, JsonObject>>;
  /**
   * Only on an undo that names what it undoes: the forward call's idempotency key (hand it to the
   * remote so it can refuse that forward call should it arrive late) and its result (null when
   * the forward call's outcome is unknown: it may or may not have happened), and the latest
   * complete-by of its dispatches, after which no try of it is started or awaited (absent from
   * older schedulers).
   */
  compensates?: { idempotencyKey: string; result: JsonObject | null; completeBy?: number | undefined };
  /**
   * Hand this to the remote unchanged (an `Idempotency-Key` header, a request id): it is the same
   * on every try and every redelivery of this step in this mode, so the remote applies the effect once.
   */
  idempotencyKey: string;
  /** The process attempt (fencing token); not the try number, and never part of an idempotency key. */
  attempt: number;
  /** Which try of this request this is, from 1: for logs only. */
  tryNumber: number;
  /** Epoch ms after which nobody waits for this call; `signal` aborts then. */
  completeBy: number;
  /** Aborts at complete-by: pass it to `fetch` (or whatever makes the call) and give up promptly. */
  signal: AbortSignal;
  /** A pino logger bound to processId, orderId, step, attempt, mode, operation and try. */
  logger: Logger;
  /**
   * The W3C trace context of this try's span, when the agent traces: send it on as the
   * `traceparent` header (the HTTP agent does) so the remote's spans join the order's trace.
   * Absent when tracing is off.
   */
  traceparent?: string;
}

/**
 * Makes one remote call. Resolve with the operation's result, a JSON object (small: a reference,
 * not a document; see `stepResultProblem`). Throw `TransientError` (worth retrying, optionally
 * with `retryAfterMs`) or `PermanentError` (will fail the same way again). Anything else thrown is
 * an unknown outcome: the call may have taken effect, so the library retries it under the same
 * idempotency key inside complete-by, and never takes it as not having happened.
 */
export type OperationHandler<Input = JsonObject> = (call: AgentCall<Input>) => Promise<JsonObject>;
