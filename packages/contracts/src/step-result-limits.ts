import { nestsDeeperThan } from './json-depth';

/**
 * How large a step's result may be. Results are stored in the process document and carried to
 * every later step's request (`AgentRequest.results`), so they must stay small: a reference (an
 * id, a URL), not a document. MongoDB's 16 MiB document limit and the request size set the bound.
 */
export const MAX_STEP_RESULT_BYTES = 16 * 1024;

/** How deeply a step's result may nest objects and arrays. */
export const MAX_STEP_RESULT_DEPTH = 32;

/**
 * Why a step's result cannot be carried, or null when it can. The remote applied its effect all
 * the same: a caller must treat the step as done (and undo it), never as "did not happen".
 */
export function stepResultProblem(result: unknown): string | null {
  if (nestsDeeperThan(result, MAX_STEP_RESULT_DEPTH)) {
    return `the result nests more than ${MAX_STEP_RESULT_DEPTH} levels of objects and arrays`;
  }
  const bytes = Buffer.byteLength(JSON.stringify(result) ?? '');
  if (bytes > MAX_STEP_RESULT_BYTES) return `the result is ${bytes} bytes as JSON, more than the ${MAX_STEP_RESULT_BYTES} a step result may carry`;
  return null;
}
