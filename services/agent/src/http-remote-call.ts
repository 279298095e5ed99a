import { z } from 'zod';
import type { JsonObject } from '@sas/contracts';
import { PermanentError, TransientError, systemClock, type Clock } from '@sas/runtime';
import { parseRetryAfter, type AgentCall, type OperationHandler } from '@sas/agent';

/** Options of {@link createHttpRemoteCall}. */
export interface HttpRemoteCallOptions {
  /**
   * Gives up on one HTTP call after this long (a transient fault, so the agent may retry within
   * complete-by); 0 waits until the caller's signal aborts. @default 10000
   */
  timeoutMs?: number;
  /** Reads `Retry-After` dates against it. @default systemClock */
  clock?: Clock;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

/**
 * The header naming the forward call a compensation undoes, sent beside the remote simulator's
 * `payload.originalIdempotencyKey` so that a remote can read it without parsing the payload.
 */
export const compensatesIdempotencyKeyHeader = 'Compensates-Idempotency-Key';

// Said of every failure after which the remote may have applied the effect: such a call must be
// retried (the remote replays it) or compensated, never taken as not having happened.
const unknownOutcome =
  'the outcome is unknown, so the call is retried under the same Idempotency-Key, where the remote replays it';

/** A successful answer of the remote simulator. */
const SuccessBody = z.object({
  effectId: z.string().min(1),
  result: z.record(z.string(), z.unknown()),
});

/**
 * An {@link OperationHandler} over HTTP to a remote service laid out as the remote simulator is:
 * `POST {baseUrl}/services/{agent}/{operation}` with header `Idempotency-Key` and body
 * `{ orderId, payload }`; a compensation that names its forward call also sends that call's key as
 * `Compensates-Idempotency-Key` and as `payload.originalIdempotencyKey`. 2xx resolves with
 * `{ ...result, effectId }`; 429, 5xx, 3xx (never followed), network errors and timeouts are
 * transient (with `Retry-After` as a hint); every other status is permanent. A 2xx whose body cannot be read or
 * understood is transient too: the remote applied something, so the step must not be taken as
 * failed (a failed step is never compensated) but retried, and the retry replays the answer.
 */
export function createHttpRemoteCall(baseUrl: string, options: HttpRemoteCallOptions = {}): OperationHandler<unknown> {
  const base = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  if (!base || (base.protocol !== 'http:' && base.protocol !== 'https:')) {
    throw new Error(
      `REMOTE_URL is not an http(s) URL (got '${baseUrl}'); set it to e.g. http://127.0.0.1:4100`,
    );
  }
  const root = base.href.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 10_000;
  const clock = options.clock ?? systemClock;
  const doFetch = options.fetch ?? globalThis.fetch;

  return async (request) => {
    const { signal } = request;
    const target = `${request.agent}/${request.operation}`;
    const url = `${root}/services/${encodeURIComponent(request.agent)}/${encodeURIComponent(request.operation)}`;
    const signals = timeoutMs > 0 ? [signal, AbortSignal.timeout(timeoutMs)] : [signal];
    const aborted = (): TransientError =>
      new TransientError(
        `call to ${target} aborted by the agent (complete-by reached); the request may have reached the remote, so its outcome is unknown`,
      );
    let response: Response;
    try {
      response = await doFetch(url, { ...requestInit(request), signal: AbortSignal.any(signals) });
    } catch (e) {
      if (signal.aborted) throw aborted();
      // fetch's errors may come from another realm (undici under jest), so read them by shape.
      const err = errorShape(e);
      if (err.name === 'TimeoutError') {
        throw new TransientError(
          `${target} did not answer within ${timeoutMs} ms; ${unknownOutcome}`,
          undefined,
          { cause: e },
        );
      }
      const cause = err.cause ? `: ${errorShape(err.cause).message}` : '';
      throw new TransientError(`could not reach ${url} (${err.message}${cause})`, undefined, { cause: e });
    }

    const { status } = response;
    const retryAfter = response.headers.get('retry-after');
    let text: string;
    try {
      text = await response.text();
    } catch (e) {
      // The status arrived, so the request reached the remote; whatever it did, we cannot read it.
      if (signal.aborted) throw aborted();
      const err = errorShape(e);
      const why =
        err.name === 'TimeoutError'
          ? `its body did not arrive within ${timeoutMs} ms`
          : `its body could not be read (${err.message}${err.cause ? `: ${errorShape(err.cause).message}` : ''})`;
      throw new TransientError(`${target} answered ${status} but ${why}; ${unknownOutcome}`, undefined, {
        cause: e,
      });
    }

    if (status >= 200 && status < 300) return parseSuccess(target, status, text);
    if (status >= 300 && status < 400) {
      const location = response.headers.get('location') ?? '(no Location header)';
      throw new TransientError(
        `${target} answered ${status} (a redirect to ${location}) instead of its result. The agent follows no redirect of a call ` +
          `with effects, and the remote may have applied it before redirecting: ${unknownOutcome}. ` +
          'If the remote moved, point REMOTE_URL at its new address',
      );
    }
    const detail = `${target} answered ${status}: ${errorMessageOf(text)}`;
    if (status === 429 || status >= 500) {
      throw new TransientError(detail, parseRetryAfter(retryAfter, clock.now()));
    }
    throw new PermanentError(detail);
  };
}

// Method, headers and body of one call; the same on every try, so the remote can replay it.
function requestInit(request: AgentCall<unknown>): RequestInit {
  const compensates = request.compensates?.idempotencyKey;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'Idempotency-Key': request.idempotencyKey,
  };
  if (compensates !== undefined) headers[compensatesIdempotencyKeyHeader] = compensates;
  const payload =
    compensates === undefined ? request.payload : { ...request.payload, originalIdempotencyKey: compensates };
  return {
    method: 'POST',
    headers,
    body: JSON.stringify({ orderId: request.orderId, payload }),
    // Following 301/302/303 would re-send the call as a GET and report what that GET answered.
    redirect: 'manual',
  };
}

// A 2xx means the remote applied the effect (or replayed it): a body we cannot use leaves the
// outcome unknown, never failed.
function parseSuccess(target: string, status: number, text: string): JsonObject {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new TransientError(
      `${target} answered ${status} with a body that is not JSON: '${text.slice(0, 200)}'; ${unknownOutcome}`,
    );
  }
  const parsed = SuccessBody.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new TransientError(
      `${target} answered ${status} without { effectId, result } (${issues}); ${unknownOutcome}`,
    );
  }
  return { ...parsed.data.result, effectId: parsed.data.effectId };
}

/** The remote's `{ "error": "..." }`, or the start of whatever else it sent. */
function errorMessageOf(text: string): string {
  try {
    const json: unknown = JSON.parse(text);
    if (json && typeof json === 'object' && 'error' in json && typeof json.error === 'string')
      return json.error;
  } catch {
    // not JSON: show the raw text below
  }
  return text.trim().slice(0, 200) || '(empty body)';
}

/** name, message and cause of anything thrown, without trusting `instanceof Error`. */
function errorShape(e: unknown): { name: string; message: string; cause: unknown } {
  if (typeof e === 'object' && e !== null) {
    const o = e as { name?: unknown; message?: unknown; cause?: unknown };
    return {
      name: typeof o.name === 'string' ? o.name : 'Error',
      message: typeof o.message === 'string' ? o.message : JSON.stringify(e),
      cause: o.cause,
    };
  }
  return { name: 'Error', message: String(e), cause: undefined };
}
