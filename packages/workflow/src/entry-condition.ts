import type { JsonObject, ProcessDocument } from '@sas/contracts';
import { continueCompensation } from './compensation';
import type { ProcessDraft } from './process-draft';
import type { TransitionResult } from './transition-result';
import { entryOf, entryRecords } from './workflow-entries';

/**
 * What a condition sees: the payload, and a result for every step by name (group members
 * included), null for a step that was skipped, has not run, or returned none.
 */
export function conditionInput(doc: ProcessDocument): { payload: JsonObject; results: Record<string, JsonObject | null> } {
  const results: Record<string, JsonObject | null> = {};
  for (const s of doc.steps) results[s.name] = s.state === 'Completed' ? s.result : null;
  return { payload: doc.payload, results };
}

/**
 * A condition that cannot be decided (a CEL error, or not a boolean) is a permanent failure of
 * its entry, as if its agent had refused it: retrying gives the same answer. The workflow's
 * `onPermanentFailure` applies; a resubmit evaluates the condition again.
 */
export function conditionFailed(draft: ProcessDraft, index: number, what: string, why: string): TransitionResult {
  const doc = draft.doc;
  for (const i of entryRecords(doc.steps, index)) {
    const record = draft.step(i);
    record.state = 'Failed';
    record.error = what;
    record.finishedAt = draft.now;
  }
  doc.reason = what;
  const name = entryOf(draft.ctx.workflow, draft.step(index)).name;
  draft.status('Failed', { step: name, reason: what });
  if (draft.ctx.workflow.onPermanentFailure === 'error') {
    draft.settle('Error');
    draft.alert('ProcessError', `${what}; fix the order or the workflow, then resubmit or cancel the process`);
    return draft.finish(`${why}; ${what}: permanent failure`);
  }
  doc.failureCount = 0;
  return continueCompensation(draft, index, `${why}; ${what}: permanent failure`);
}
