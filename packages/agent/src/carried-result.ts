import { JsonObject, stepResultProblem } from '@sas/contracts';

/** A handler's result as the ok reply carries it. */
export interface CarriedResult {
  result: JsonObject;
  /** Why the result could not be carried; then `result` is `{}`. */
  resultRefused?: string;
}

/**
 * Checks what a handler resolved with before it goes into the ok reply. A handler that returned
 * has had its effect, so a result that cannot be carried (not a JSON object, too large, too deep)
 * never turns the reply into an error: it is replaced by `{}` and `resultRefused` says why, and
 * the workflow undoes the step. `undefined` (a handler with nothing to say) is `{}`.
 */
export function carriedResult(value: unknown): CarriedResult {
  if (value === undefined) return { result: {} };
  const parsed = JsonObject.safeParse(value);
  if (!parsed.success) {
    const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return { result: {}, resultRefused: `the handler returned ${got}, not a JSON object` };
  }
  const problem = stepResultProblem(parsed.data);
  return problem === null ? { result: parsed.data } : { result: {}, resultRefused: problem };
}
