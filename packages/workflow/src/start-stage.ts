import { evaluateCondition } from './condition';
import { conditionFailed, conditionInput } from './entry-condition';
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
 * Finishes the draft; `why` starts the history entry. The entries that start the next one when
 * they complete are handed this function (a `StartEntry`) rather than importing it.
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
        return startGroup(draft, at, because, startStage);
      case 'wait':
        return startWait(draft, at, because, startStage);
      case 'signal':
        return startSignalWait(draft, at, because, startStage);
    }
  }
}

