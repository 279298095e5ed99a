import { parseRetryAfter, type AgentCall, type OperationHandler } from '@sas/agent';
import type { JsonObject } from '@sas/contracts';
import { PermanentError, TransientError, systemClock, type Clock } from '@sas/runtime';
import { askLookup, lookupRequestOf, operationLookup, type LookupRequest } from './http-lookup';
import { findForwardResult } from './forward-lookup';
import type { OperationMapping } from './http-mapping';
import { callSignal } from './call-signal';
import type { HttpAnswer, HttpFetch } from './keep-alive-fetch';
import { classifyStatus } from './status-class';
import { stepResultOf } from './step-result';
import { MissingReferenceError, fillJson, fillString } from './template';
import { PathEscapeError, fillUrl, urlProblem } from './url-template';
import { templateScopeOf } from './template-scope';

/** Options of {@link createHttpRemoteCall}. */
export interface HttpRemoteCallOptions {
  /** What `{env.X}` references read; checked at start by `httpAgent`. @default {} */
  env?: Readonly<Record<string, string>>;
  /**
   * Gives up on one HTTP call after this long (a transient fault, so the agent may retry within
   * complete-by); 0 waits until the caller's signal aborts. @default 10000
   */
  timeoutMs?: number;
  /** Reads `Retry-After` dates against it. @default systemClock */
  clock?: Clock;
  /** Makes the call: `globalThis.fetch`, or {@link keepAliveFetch} as the agent service does. @default globalThis.fetch */
  fetch?: HttpFetch;
}

// Said of every failure after which the remote may have applied the effect: such a call must be
// retried (the remote replays it) or compensated, never taken as not having happened.
const unknownOutcome = (header: string): string =>
  `the outcome is unknown, so the call is retried under the same ${header}, where the remote replays it`;

/**
 * An operation handler that makes one HTTP call as `mapping` says: method, URL, headers and body
 * filled from the call; the idempotency key in `mapping.idempotencyHeader` on every try (and on
 * an undo that names its forward call, that call's key in `mapping.compensatesHeader`). Statuses
 * are sorted by `classifyStatus`: transient ones (with `Retry-After` as a hint), 3xx (never
 * followed), network errors and timeouts throw `TransientError`; other failures `PermanentError`.
 * A success resolves with the object at `resultPath` plus `resultFields`. A success whose body
 * cannot be read or holds no object at `resultPath` is transient too: the remote applied
 * something, so the step must not be taken as failed (a failed step is never compensated) but
 * retried, and the retry replays the answer.
 *
 * With a `lookup`, every try first asks the remote whether the effect already exists (see
 * `askLookup`): found, its record gives the result and no call is made; a lookup that cannot tell
 * fails the try as transient. It is asked on the first try too: a killed agent leaves no trace, so
 * a redelivery or a recovery arrives as a first try (decision 107).
 *
 * With a `forwardLookup`, an undo whose forward outcome is unknown first asks the remote what the
 * forward call did (see `findForwardResult`): found, its record fills `compensates.result`; not
 * found past the forward call's complete-by, the undo succeeds with nothing sent.
 */
export function createHttpRemoteCall(mapping: OperationMapping, options: HttpRemoteCallOptions = {}): OperationHandler<unknown> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const clock = options.clock ?? systemClock;
  const doFetch: HttpFetch = options.fetch ?? globalThis.fetch;
  const env = options.env ?? {};
  const rules = { transient: mapping.transientStatuses, alreadyDone: mapping.alreadyDoneStatuses };
  const unknown = unknownOutcome(mapping.idempotencyHeader);

  return async (request) => {
    const { signal } = request;
    const target = `${request.agent}/${request.operation}`;
    // What the templates are filled from: the request, with the forward result an undo found.
    let source = request;
    const { forwardLookup } = mapping;
    if (forwardLookup !== undefined && request.compensates?.result === null) {
      const question = filled(target, () =>
        checkedLookup(lookupRequestOf(forwardLookup, templateScopeOf(request, env), request.traceparent), target, 'forwardLookup.url'),
      );
      const forward = await findForwardResult(forwardLookup, question, request, { fetch: doFetch, timeoutMs, clock });
      // Nothing to undo: a success with nothing sent.
      if (forward === null) return {};
      source = { ...request, compensates: { ...request.compensates, result: forward } };
    }
    const { url, init, lookup } = httpRequestOf(mapping, source, env, target);
    if (lookup !== undefined && mapping.lookup !== undefined) {
      const found = await askLookup(operationLookup(mapping, mapping.lookup, request), lookup, request, { fetch: doFetch, timeoutMs });
      if (found !== null) {
        request.logger.info({ key: lookup.key }, 'the lookup found the effect: its result is taken and no call is made');
        return found;
      }
    }
    const call = callSignal(signal, timeoutMs);
    const aborted = (): TransientError =>
      new TransientError(
        `call to ${target} aborted by the agent (complete-by reached); the request may have reached the remote, so its outcome is unknown`,
      );
    let response: HttpAnswer;
    try {
      response = await doFetch(url, { ...init, signal: call.signal });
    } catch (e) {
      call.done();
      if (signal.aborted) throw aborted();
      // fetch's errors may come from another realm (undici under jest), so read them by shape.
      const err = errorShape(e);
      if (err.name === 'TimeoutError') {
        throw new TransientError(`${target} did not answer within ${timeoutMs} ms; ${unknown}`, undefined, { cause: e });
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
      call.done();
      // The status arrived, so the request reached the remote; whatever it did, we cannot read it.
      if (signal.aborted) throw aborted();
      const err = errorShape(e);
      const why =
        err.name === 'TimeoutError'
          ? `its body did not arrive within ${timeoutMs} ms`
          : `its body could not be read (${err.message}${err.cause ? `: ${errorShape(err.cause).message}` : ''})`;
      throw new TransientError(`${target} answered ${status} but ${why}; ${unknown}`, undefined, { cause: e });
    }

    call.done();
    switch (classifyStatus(status, rules)) {
      case 'ok':
        return resultOf(mapping, target, status, text, unknown);
      case 'already-done':
        // The effect is there. A 2xx carries its result exactly as a success does (resultPath,
        // resultFields, and an unreadable result is an unknown outcome): listing a 2xx here must not
        // store a result the same answer would not give as a plain success. Another status (409,
        // 404 on an undo) carries an explanation, not a result: the step's result is {}.
        return status >= 200 && status < 300 ? resultOf(mapping, target, status, text, unknown) : {};
      case 'redirect': {
        const location = response.headers.get('location') ?? '(no Location header)';
        throw new TransientError(
          `${target} answered ${status} (a redirect to ${location}) instead of its result. The agent follows no redirect of a call ` +
            `with effects, and the remote may have applied it before redirecting: ${unknown}. ` +
            'If the remote moved, point the mapping\'s url at its new address',
        );
      }
      case 'transient':
        throw new TransientError(`${target} answered ${status}: ${errorMessageOf(text)}`, parseRetryAfter(retryAfter, clock.now()));
      case 'permanent':
        throw new PermanentError(`${target} answered ${status}: ${errorMessageOf(text)}`);
    }
  };
}

/**
 * URL and request init of one call, the same on every try so the remote can replay it, and its
 * lookup's. Both are filled before anything is sent, so a reference either lacks sends nothing.
 */
function httpRequestOf(
  mapping: OperationMapping,
  call: AgentCall<unknown>,
  env: Readonly<Record<string, string>>,
  target: string,
): { url: string; init: RequestInit; lookup?: LookupRequest } {
  const scope = templateScopeOf(call, env);
  return filled(target, () => {
    const headers: Record<string, string> = {};
    for (const [name, template] of Object.entries(mapping.headers)) headers[name] = fillString(template, scope);
    headers[mapping.idempotencyHeader] = call.idempotencyKey;
    if (mapping.compensatesHeader && call.compensates) headers[mapping.compensatesHeader] = call.compensates.idempotencyKey;
    // Present only when the agent traces: the remote's own spans then join the order's trace.
    if (call.traceparent !== undefined) headers['traceparent'] = call.traceparent;
    const body = mapping.body === null ? undefined : JSON.stringify(fillJson(mapping.body, scope));
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    return {
      url: builtUrl(fillUrl(mapping.url, scope), 'url', target),
      // Following 301/302/303 would re-send the call as a GET and report what that GET answered.
      init: { method: mapping.method, headers, ...(body !== undefined && { body }), redirect: 'manual' },
      ...(mapping.lookup !== undefined && { lookup: checkedLookup(lookupRequestOf(mapping.lookup, scope, call.traceparent), target, 'lookup.url') }),
    };
  });
}

/**
 * Runs `fill`, which fills templates of `target`'s mapping: a reference the request lacks, or a
 * value that would climb out of the URL's path, is a permanent failure (it is the same on every
 * try), and nothing was sent.
 */
function filled<T>(target: string, fill: () => T): T {
  try {
    return fill();
  } catch (e) {
    if (e instanceof PathEscapeError) throw new PermanentError(`the mapping of ${target} cannot build its URL: ${e.message}; nothing was sent`);
    if (e instanceof MissingReferenceError) {
      throw new PermanentError(
        `the mapping of ${target} needs ${e.message.replace(' has no value', '')}, which this request does not carry; nothing was sent`,
      );
    }
    throw e;
  }
}

function checkedLookup(lookup: LookupRequest, target: string, field: string): LookupRequest {
  return { ...lookup, url: builtUrl(lookup.url, field, target) };
}

/**
 * The filled URL, if it is an http(s) URL. One that is not will not become one on a retry, so it is
 * a permanent failure of the step, before anything is sent (a transient "Invalid URL" would open
 * the breaker and park every order of the agent).
 */
function builtUrl(url: string, field: string, target: string): string {
  const problem = urlProblem(url);
  if (problem) throw new PermanentError(`the mapping of ${target} built its ${field} '${url}', which ${problem}; nothing was sent`);
  return url;
}

// A 2xx means the remote applied the effect (or replayed it): a body we cannot use leaves the
// outcome unknown, never failed.
function resultOf(mapping: OperationMapping, target: string, status: number, text: string, unknown: string): JsonObject {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new TransientError(`${target} answered ${status} with a body that is not JSON: '${text.slice(0, 200)}'; ${unknown}`);
  }
  const extracted = stepResultOf(json, mapping);
  if ('missing' in extracted) {
    throw new TransientError(`${target} answered ${status} without its result (${extracted.missing.join('; ')}); ${unknown}`);
  }
  return extracted.result;
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
