import type { JsonObject, ProcessDocument } from '@sas/contracts';
import { continueCompensation } from './compensation';
import { evaluateCondition } from './condition';
import { startGroup } from './parallel-group';
import { holdForPause, isPaused } from './pause-hold';
import type { ProcessDraft } from './process-draft';
import { startSignalWait } from './signal-step';
import type { TransitionResult } from './transition-result';
import { startWait } from './wait-step';
import { entryKind, entryOf, entryRecords, nextEntryIndex } from './workflow-entries';

/**
 * The one place an entry begins (forward): the entry whose first record is at `index` has its
 * condition evaluated (false: every record Skipped, a `StepSkipped` event, and the next entry comes
 * up; an error: a permanent failure of the entry), then a task is dispatched, a group's members are
 * dispatched, a wait or a signal step starts waiting. Past the last entry the process is Processed.
 * Finishes the draft; `why` starts the history entry.
 */
export function startStage(draft: ProcessDraft, index: number, why: string): TransitionResult {
  const doc = draft.doc;
  const skipped: string[] = [];
  let at = index;
  for (;;) {
    const because = skipped.length > 0 ? `${why}; skipped ${skipped.join(', ')} (condition false)` : why;
    if (at >= doc.steps.length) {
      doc.reason = null;
      draft.settle('Processed');
      draft.status('Processed');
      return draft.finish(`${because}; all steps done`);
    }
    doc.currentStep = at;
    const entry = entryOf(draft.ctx.workflow, draft.step(at));
    if (entry.condition !== undefined) {
      const outcome = evaluateCondition(entry.condition, conditionInput(doc));
      if (!outcome.ok) return conditionFailed(draft, at, `condition of ${entry.name} failed: ${outcome.error}`, because);
      if (!outcome.value) {
        for (const i of entryRecords(doc.steps, at)) {
          const record = draft.step(i);
          record.state = 'Skipped';
          record.finishedAt = draft.now;
        }
        draft.status('StepSkipped', { step: entry.name });
        skipped.push(entry.name);
        at = nextEntryIndex(doc.steps, at);
        continue;
      }
    }
    switch (entryKind(entry)) {
      case 'task': {
        const step = draft.step(at);
        if (isPaused(draft.ctx, step.agent)) return holdForPause(draft, step.agent, because);
        draft.dispatch(at);
        return draft.finish(`${because}; dispatching ${step.name}`);
      }
      case 'group':
        return startGroup(draft, at, because);
      case 'wait':
        return startWait(draft, at, because);
      case 'signal':
        return startSignalWait(draft, at, because);
    }
  }
}

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
