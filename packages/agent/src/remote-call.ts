import type { JsonObject } from '@sas/contracts';

/** What the agent asks a remote service to do: one operation for one order, under one idempotency key. */
export interface RemoteCallRequest {
  /** The remote service, e.g. `payment`. */
  agent: string;
  /** The operation on it, e.g. `charge`. */
  operation: string;
  orderId: string;
  payload: JsonObject;
  /** Sent unchanged on every try, so the remote applies the effect once. */
  idempotencyKey: string;
  /**
   * Only on a compensation that knows what it undoes: the forward call's idempotency key, so the
   * remote can refuse that forward call should it arrive after its undo (still queued or retrying
   * when the step was canceled). Absent for forward calls and for requests from older schedulers.
   */
  compensatesIdempotencyKey?: string;
}

/**
 * One call to a remote service. The seam between the agent's retry logic and the network, so tests
 * and simulations script the remote instead of serving HTTP.
 *
 * Resolves with the operation's result. Rejects with `TransientError` (worth retrying; may carry
 * `retryAfterMs`) or `PermanentError` (will fail the same way again) from `@sas/runtime`. When
 * `signal` aborts, the call must give up promptly (the step's complete-by time has come).
 */
export type RemoteCall = (request: RemoteCallRequest, signal: AbortSignal) => Promise<JsonObject>;
