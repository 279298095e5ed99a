/** A status, or a class of statuses such as `5xx`. */
export type StatusPattern = number | `${1 | 2 | 3 | 4 | 5}xx`;

/** How a mapping sorts the statuses a remote answers. */
export interface StatusRules {
  /** Worth retrying under the same idempotency key. */
  transient: readonly StatusPattern[];
  /** The effect is already there (e.g. 409 on a replay): a success. */
  alreadyDone: readonly StatusPattern[];
}

/** What a status means for the call. */
export type StatusClass = 'ok' | 'already-done' | 'redirect' | 'transient' | 'permanent';

/** Today's classification of the HTTP agent: 429 and 5xx are transient, the rest permanent. */
export const DEFAULT_TRANSIENT_STATUSES: readonly StatusPattern[] = [429, '5xx'];

/**
 * Sorts a status: `alreadyDone` first, then 2xx (ok), 3xx (a redirect is never followed: an
 * unknown outcome), `transient`, and everything else is permanent.
 */
export function classifyStatus(status: number, rules: StatusRules): StatusClass {
  if (rules.alreadyDone.some((p) => matches(p, status))) return 'already-done';
  if (status >= 200 && status < 300) return 'ok';
  if (status >= 300 && status < 400) return 'redirect';
  if (rules.transient.some((p) => matches(p, status))) return 'transient';
  return 'permanent';
}

function matches(pattern: StatusPattern, status: number): boolean {
  return typeof pattern === 'number' ? pattern === status : Math.floor(status / 100) === Number(pattern[0]);
}
