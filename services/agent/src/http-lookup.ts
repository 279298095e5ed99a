import type { AgentCall } from '@sas/agent';
import type { JsonObject } from '@sas/contracts';
import { TransientError } from '@sas/runtime';
import type { LookupMapping, OperationMapping } from './http-mapping';
import type { HttpAnswer, HttpFetch } from './keep-alive-fetch';
import { readLookupAnswer } from './lookup-answer';
import { stepResultOf, type ResultExtraction } from './step-result';
import { fillJson, fillString, type TemplateScope } from './template';
import { callSignal } from './call-signal';
import { fillUrl } from './url-template';

/** A lookup filled for one call: what to send, and the key a found record must hold. */
export interface LookupRequest {
  url: string;
  init: RequestInit;
  key: string;
}

/**
 * Fills a lookup's templates from the call's scope.
 *
 * @throws MissingReferenceError when a reference has no value, and PathEscapeError when a value
 *   would climb out of the URL's path (the caller makes both permanent: the lookup is filled before
 *   every try's call, so no call was ever made for this request).
 */
export function lookupRequestOf(lookup: LookupMapping, scope: TemplateScope, traceparent?: string): LookupRequest {
  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(lookup.headers)) headers[name] = fillString(template, scope);
  // As on the call: the remote's span of the lookup joins the order's trace.
  if (traceparent !== undefined) headers['traceparent'] = traceparent;
  const body = lookup.body === null ? undefined : JSON.stringify(fillJson(lookup.body, scope));
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  return {
    url: fillUrl(lookup.url, scope),
    init: { method: lookup.method, headers, ...(body !== undefined && { body }), redirect: 'manual' },
    key: fillString(lookup.key, scope),
  };
}

// Said of every lookup that could not tell: the try ends before its call, and is retried.
const notTaken = 'no call was made and the try is retried (a lookup that cannot tell is never taken as "not found")';

/** Which lookup {@link askLookup} asks, and how it reads a found record. */
export interface LookupQuestion {
  lookup: LookupMapping;
  /** How a found record is read when the lookup names neither `resultPath` nor `resultFields`. */
  readAs: ResultExtraction;
  /** Names the lookup in messages, e.g. `the lookup of payment/charge`. */
  label: string;
}

/** The lookup of an operation: a found record is read as the operation reads a success body. */
export function operationLookup(operation: OperationMapping, lookup: LookupMapping, call: AgentCall<unknown>): LookupQuestion {
  return { lookup, readAs: operation, label: `the lookup of ${call.agent}/${call.operation}` };
}

/**
 * Asks whether an effect exists. Resolves with the result read from the found record (by the
 * lookup's `resultPath`/`resultFields` when it names either, else by `readAs`), or `null` when
 * the effect does not exist. Bounded by the call's signal (complete-by) and `timeoutMs`.
 *
 * @throws TransientError when the lookup fails or its answer cannot tell (see `readLookupAnswer`),
 *   or a found record holds no readable result: the effect exists, so the step must not fail.
 */
export async function askLookup(
  question: LookupQuestion,
  request: LookupRequest,
  call: AgentCall<unknown>,
  options: { fetch: HttpFetch; timeoutMs: number },
): Promise<JsonObject | null> {
  const { lookup, label: target } = question;
  const { signal } = call;
  const failed = (e: unknown, what: string): TransientError => {
    if (signal.aborted) return new TransientError(`${target} was aborted by the agent (complete-by reached); ${notTaken}`, undefined, { cause: e });
    const err = e as { name?: unknown; message?: unknown; cause?: { message?: unknown } };
    const why = err.name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : `${String(err.message)}${err.cause?.message ? `: ${String(err.cause.message)}` : ''}`;
    return new TransientError(`${target} ${what} (${why}); ${notTaken}`, undefined, { cause: e });
  };
  const exchange = callSignal(signal, options.timeoutMs);
  let answer: HttpAnswer;
  let text: string;
  try {
    try {
      answer = await options.fetch(request.url, { ...request.init, signal: exchange.signal });
    } catch (e) {
      throw failed(e, `could not reach ${request.url}`);
    }
    try {
      text = await answer.text();
    } catch (e) {
      throw failed(e, `answered ${answer.status} but its body could not be read`);
    }
  } finally {
    exchange.done();
  }
  const read = readLookupAnswer(lookup, request.key, answer.status, text);
  if (read.kind === 'not-found') return null;
  if (read.kind === 'unknown') throw new TransientError(`${target} cannot tell whether the effect exists: ${read.why}; ${notTaken}`);
  // A lookup that names either field reads the record by its own pair (an absent resultPath is
  // the whole record); one that names neither reads it as the call's success body is read.
  const own = lookup.resultPath !== undefined || lookup.resultFields !== undefined;
  const extracted = stepResultOf(
    read.record,
    own ? { resultPath: lookup.resultPath, resultFields: lookup.resultFields ?? {} } : question.readAs,
  );
  if ('missing' in extracted) {
    throw new TransientError(
      `${target} found the effect but not its result (${extracted.missing.join('; ')}); no call was made, and the try is retried: ` +
        'point the lookup\'s resultPath and resultFields at the result in a found record',
    );
  }
  if (read.count > 1) {
    call.logger.warn({ records: read.count, key: request.key }, 'the lookup found several effects for this key: the remote applied it more than once before; the first is taken');
  }
  return extracted.result;
}
