import { MAX_STEP_RESULT_BYTES, MAX_STEP_RESULT_DEPTH, type JsonObject } from '@sas/contracts';

/** A result just over the size limit, as an older agent that never checked would send it. */
export function oversizedResult(): JsonObject {
  return { receipt: 'x'.repeat(MAX_STEP_RESULT_BYTES) };
}

/** A small result nested one level deeper than the depth limit allows. */
export function tooDeepResult(): JsonObject {
  let node: JsonObject = { leaf: true };
  for (let depth = 1; depth <= MAX_STEP_RESULT_DEPTH; depth++) node = { next: node };
  return node;
}
