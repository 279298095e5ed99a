import type { ReceivedSignal } from '@sas/contracts';
import { continueCompensation } from './compensation';
import { evaluateCondition } from './condition';
import { conditionInput } from './entry-condition';
import type { ProcessDraft } from './process-draft';
import type { StartEntry } from './start-entry';
import type { TransitionResult } from './transition-result';
import type { SignalStep } from './workflow-definition';
import { entryOf, nextEntryIndex } from './workflow-entries';

/**
 * Begins the signal step whose record is at `index` (its condition already true): it is Running
 * with `waitUntil` at its timeout. A signal of its name kept before the step was reached (the
 * oldest unconsumed one) completes it at once; otherwise the process sits Pending until the
 * timeout (a `wake` for then), and a signal arriving meanwhile completes it (`applySignal`).
 * Finishes the draft; `startEntry` starts the next entry once the step completes.
 */
export function startSignalWait(draft: ProcessDraft, index: number, why: string, startEntry: StartEntry): TransitionResult {
  const record = draft.step(index);
  const step = entryOf(draft.ctx.workflow, record) as SignalStep;
  record.state = 'Running';
  record.signal = step.signal.name;
  record.startedAt = draft.now;
  record.finishedAt = null;
  record.error = null;
  record.result = null;
  record.waitUntil = new Date(draft.ctx.now + step.signal.timeoutMs);
  const kept = (draft.doc.signals ?? []).find((s) => s.name === step.signal.name && !s.consumedBy);
  if (kept) return consumeSignal(draft, index, kept, `${why}; signal ${kept.name} kept since ${kept.at.toISOString()}`, startEntry);
  draft.release(record.waitUntil.getTime());
  return draft.finish(`${why}; ${step.name} waits for signal ${step.signal.name} until ${record.waitUntil.toISOString()}`);
}

/**
 * Completes the Running signal step at `index` with `signal` (one of the draft's own signals):
 * its data becomes the step's result, the signal is marked consumed by the step, and the next
 * entry starts (`startEntry`). Finishes the draft.
 */
export function consumeSignal(draft: ProcessDraft, index: number, signal: ReceivedSignal, why: string, startEntry: StartEntry): TransitionResult {
  const record = draft.step(index);
  const step = entryOf(draft.ctx.workflow, record) as SignalStep;
  const rejectWhen = step.signal.rejectWhen;
  if (rejectWhen !== undefined) {
    const verdict = evaluateCondition(rejectWhen, { ...conditionInput(draft.doc), data: signal.data });
    const named = `signal ${signal.name} (${signal.id})`;
    if (!verdict.ok) {
      // Neither yes nor no: an operator decides (resubmit after fixing the sender, or cancel); never a silent approval.
      signal.consumedBy = record.name;
      return failSignalStep(draft, index, `${named}: rejectWhen '${rejectWhen}' could not be decided (${verdict.error})`, 'error', why);
    }
    if (verdict.value) {
      signal.consumedBy = record.name;
      return failSignalStep(draft, index, `rejected by ${named}: ${rejectWhen}`, step.signal.onReject ?? 'compensate', why);
    }
  }
  record.state = 'Completed';
  record.finishedAt = draft.now;
  record.result = signal.data;
  signal.consumedBy = record.name;
  draft.status('StepCompleted', { step: record.name });
  return startEntry(draft, nextEntryIndex(draft.doc.steps, index), `${why}; consumed by ${record.name}`);
}

/**
 * A claim of a process whose current record is a Running signal step. Before its deadline (the
 * process released earlier for another reason) the process goes back to sleep until it. At or
 * after it, the step's `onTimeout` applies: `continue` completes the step with the result
 * `{ timedOut: true }` and goes on; `error` fails it and stops the process in Error with an alert
 * (a resubmit waits again, with a new deadline); `compensate` fails it and undoes the earlier steps.
 * A signal committed before this claim has already completed the step: the claim then sees a
 * Completed record and never times it out.
 */
export function signalTimedOut(draft: ProcessDraft, why: string, startEntry: StartEntry): TransitionResult {
  const index = draft.doc.currentStep;
  const record = draft.step(index);
  if (record.state !== 'Running' || !record.waitUntil) return { applied: false, reason: `signal step ${record.name} is ${record.state}, not waiting` };
  const deadline = record.waitUntil;
  if (deadline.getTime() > draft.ctx.now) {
    draft.release(deadline.getTime());
    return draft.finish(`${why}; ${record.name} still waits for signal ${record.signal ?? '?'} until ${deadline.toISOString()}`);
  }
  const step = entryOf(draft.ctx.workflow, record) as SignalStep;
  const what = `no signal ${step.signal.name} within ${step.signal.timeoutMs} ms (deadline ${deadline.toISOString()})`;
  if (step.signal.onTimeout === 'continue') {
    record.finishedAt = draft.now;
    record.state = 'Completed';
    record.result = { timedOut: true };
    draft.status('StepCompleted', { step: record.name });
    return startEntry(draft, nextEntryIndex(draft.doc.steps, index), `${why}; ${what}: ${record.name} goes on without it`);
  }
  return failSignalStep(draft, index, what, step.signal.onTimeout, why);
}

/**
 * Fails the signal step at `index` (no signal in time, or one that rejected): the process stops in
 * Error with an alert (a resubmit waits again, with a new deadline), or undoes the earlier steps.
 * The reason names what failed it, in the step, the process's reason, its status event and history.
 */
function failSignalStep(draft: ProcessDraft, index: number, what: string, then: 'error' | 'compensate', why: string): TransitionResult {
  const record = draft.step(index);
  record.finishedAt = draft.now;
  record.state = 'Failed';
  record.error = what;
  draft.doc.reason = `${record.name}: ${what}`;
  draft.status('Failed', { step: record.name, reason: what });
  if (then === 'error') {
    draft.settle('Error');
    draft.alert('ProcessError', `${record.name}: ${what}; send the signal and resubmit the process (it waits again), or cancel it`);
    return draft.finish(`${why}; ${what}: stopped in Error`);
  }
  draft.doc.failureCount = 0;
  return continueCompensation(draft, index, `${why}; ${what}: undoing the earlier steps`);
}
