import { z } from 'zod';
import type { JsonObject } from '@sas/contracts';
import { PermanentError, TransientError, systemClock, type Clock } from '@sas/runtime';
import { parseRetryAfter } from './parse-retry-after';
import type { RemoteCall } from './remote-call';

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

/** A successful answer of the remote simulator. */
const SuccessBody = z.object({
  effectId: z.string().min(1),
  result: z.record(z.string(), z.unknown()),
});

/**
 * {@link RemoteCall} over HTTP to a remote service laid out as the remote simulator is:
 * `POST {baseUrl}/services/{agent}/{operation}` with header `Idempotency-Key` and body
 * `{ orderId, payload }`. 2xx resolves with `{ ...result, effectId }`; 429, 5xx, network errors
 * and timeouts are transient (with `Retry-After` as a hint); every other status is permanent.
 */
export function createHttpRemoteCall(baseUrl: string, options: HttpRemoteCallOptions = {}): RemoteCall {
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

  return async (request, signal) => {
    const target = `${request.agent}/${request.operation}`;
    const url = `${root}/services/${encodeURIComponent(request.agent)}/${encodeURIComponent(request.operation)}`;
    const signals = timeoutMs > 0 ? [signal, AbortSignal.timeout(timeoutMs)] : [signal];
    let status: number;
    let text: string;
    let retryAfter: string | null;
    try {
      const response = await doFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'Idempotency-Key': request.idempotencyKey },
        body: JSON.stringify({ orderId: request.orderId, payload: request.payload }),
        signal: AbortSignal.any(signals),
      });
      status = response.status;
      retryAfter = response.headers.get('retry-after');
      text = await response.text();
    } catch (e) {
      if (signal.aborted)
        throw new TransientError(`call to ${target} aborted by the agent (complete-by reached)`);
      // fetch's errors may come from another realm (undici under jest), so read them by shape.
      const err = errorShape(e);
      if (err.name === 'TimeoutError') {
        throw new TransientError(`${target} did not answer within ${timeoutMs} ms`, undefined, { cause: e });
      }
      const cause = err.cause ? `: ${errorShape(err.cause).message}` : '';
      throw new TransientError(`could not reach ${url} (${err.message}${cause})`, undefined, { cause: e });
    }

    if (status >= 200 && status < 300) return parseSuccess(target, status, text);
    const detail = `${target} answered ${status}: ${errorMessageOf(text)}`;
    if (status === 429 || status >= 500) {
      throw new TransientError(detail, parseRetryAfter(retryAfter, clock.now()));
    }
    throw new PermanentError(detail);
  };
}

function parseSuccess(target: string, status: number, text: string): JsonObject {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new PermanentError(
      `${target} answered ${status} with a body that is not JSON: '${text.slice(0, 200)}'`,
    );
  }
  const parsed = SuccessBody.safeParse(json);
  if (!parsed.success) {
    throw new PermanentError(
      `${target} answered ${status} without { effectId, result } (${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')})`,
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
