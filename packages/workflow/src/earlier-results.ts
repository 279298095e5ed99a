import type { JsonObject, StepRecord } from '@sas/contracts';

/**
 * What a request carries in `AgentRequest.results`: the results of the steps before `index` that
 * returned one, keyed by step name. A forward step so sees every step completed before it; a
 * compensation sees the steps before the one it undoes (whose own result travels in
 * `compensates.result`). A step whose result is null (none, or one that could not be carried) is
 * left out, so a missing key means "no result to use". Always an object, empty for the first step,
 * so an agent never has to tell "no results" from "an older scheduler".
 */
export function earlierResults(steps: readonly StepRecord[], index: number): Record<string, JsonObject> {
  const results: Record<string, JsonObject> = {};
  for (const step of steps.slice(0, index)) if (step.result !== null) results[step.name] = step.result;
  return results;
}
