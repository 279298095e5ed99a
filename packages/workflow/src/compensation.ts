import type { StepRecord } from '@sas/contracts';
import { holdForPause, isPaused } from './pause-hold';
import type { ProcessDraft } from './process-draft';
import type { TransitionResult } from './transition-result';

/**
 * Whether a step may have had an effect that must be undone: it completed, or it was dispatched
 * and its outcome is unknown (timed out), or its compensation is under way. Compensations are
 * idempotent, so undoing a step that in fact never took effect is harmless.
 */
export function needsCompensation(step: StepRecord): boolean {
  return step.compensation !== null && (step.state === 'Completed' || step.state === 'Running' || step.state === 'Compensating');
}

/** Highest step index at or below `from` that needs compensating, or -1. */
export function compensationTarget(steps: readonly StepRecord[], from: number): number {
  for (let i = Math.min(from, steps.length - 1); i >= 0; i--) {
    const step = steps[i];
    if (step && needsCompensation(step)) return i;
  }
  return -1;
}

/**
 * Ends every wait or signal step still waiting: the process is being undone, so it will never fire
 * or take its signal. Such a step sent nothing and has nothing to undo, so the backward pass walks
 * past it without a dispatch; it is left `Compensated` (withdrawn, not failed: it is not why the
 * process stopped) so a finished process never shows a step still running (decision 127).
 */
function withdrawWaits(draft: ProcessDraft): void {
  for (const step of draft.doc.steps) {
    if ((step.kind === 'wait' || step.kind === 'signal') && step.state === 'Running') {
      step.state = 'Compensated';
      step.finishedAt = draft.now;
    }
  }
}

/**
 * Dispatches the next compensation at or below `from`, or ends the process Compensated (Canceled
 * for an operator cancel) when nothing is left to undo.
 */
export function continueCompensation(draft: ProcessDraft, from: number, why: string): TransitionResult {
  draft.doc.mode = 'compensate';
  withdrawWaits(draft);
  const target = compensationTarget(draft.doc.steps, from);
  if (target < 0) {
    const canceled = draft.doc.canceled;
    draft.settle(canceled ? 'Canceled' : 'Compensated');
    draft.status(canceled ? 'Canceled' : 'Compensated', draft.doc.reason ? { reason: draft.doc.reason } : {});
    return draft.finish(`${why}; nothing left to undo`);
  }
  const step = draft.step(target);
  const inFlightUntil = draft.doc.inFlightUntil?.getTime() ?? 0;
  if (inFlightUntil > draft.ctx.now) {
    // A forward call whose send failed may still land until then: an undo sent now could overtake it.
    draft.release(inFlightUntil);
    return draft.finish(`${why}; undo of ${step.name} held ${inFlightUntil - draft.ctx.now} ms until a dispatch that may have left passes its complete-by`);
  }
  if (step.state !== 'Compensating') {
    // First compensation attempt of this step: count its dispatches afresh and key it as an undo.
    step.state = 'Compensating';
    step.dispatches = 0;
    step.startedAt = null;
    step.finishedAt = null;
    // The undo gets its own parking window: time parked going forward is not held against it.
    step.parkedSince = null;
    step.idempotencyKey = `${step.idempotencyKey}/compensate`;
    // A group member's forward timing ends here: its undo is held like any other step's.
    if (step.group !== undefined) {
      step.completeBy = null;
      step.notBefore = null;
    }
  }
  draft.doc.currentStep = target;
  if (isPaused(draft.ctx, step.agent)) return holdForPause(draft, step.agent, why);
  draft.dispatch();
  return draft.finish(`${why}; compensating ${step.name}`);
}
