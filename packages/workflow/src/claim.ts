import type { ProcessDocument } from '@sas/contracts';
import { continueCompensation } from './compensation';
import { holdForPause, isPaused } from './pause-hold';
import { claimGroup, inGroup } from './parallel-group';
import { ProcessDraft } from './process-draft';
import { signalTimedOut } from './signal-step';
import { startStage } from './start-stage';
import { wakeWait } from './wait-step';
import { entryRecords } from './workflow-entries';
import type { TransitionContext } from './transition-context';
import type { TransitionResult } from './transition-result';

/** A scheduler takes a Pending process and dispatches its current step (or compensation). */
export function claim(doc: ProcessDocument, ctx: TransitionContext): TransitionResult {
  if (doc.state !== 'Pending') return { applied: false, reason: `not claimable: state is ${doc.state}` };
  if (doc.heldFor) {
    // Held for a paused agent: claimable (whatever notBefore says) only once that agent is resumed.
    if (isPaused(ctx, doc.heldFor)) return { applied: false, reason: `held: agent ${doc.heldFor} is paused` };
  } else if (doc.notBefore.getTime() > ctx.now) {
    return { applied: false, reason: `not claimable before ${doc.notBefore.toISOString()}` };
  }
  const draft = new ProcessDraft(doc, ctx);
  if (doc.heldFor) {
    draft.doc.heldFor = null;
    draft.doc.notBefore = draft.now;
  }
  if (doc.mode === 'compensate') return continueCompensation(draft, doc.currentStep, `claimed by ${ctx.who}`);
  const step = draft.step();
  const why = `claimed by ${ctx.who}`;
  // An entry not begun yet (the first, or one held for a paused agent, or resubmitted) begins here.
  if (entryRecords(doc.steps, doc.currentStep).every((i) => doc.steps[i]?.state === 'NotStarted')) {
    const before = draft.actions.length;
    if (doc.currentStep === 0 && step.dispatches === 0) draft.status('Processing');
    const processing = draft.actions.slice(before, before + 1);
    const result = startStage(draft, doc.currentStep, why);
    // Held for a paused agent before anything happened (no entry skipped): `Processing` is sent once it starts.
    const untouched = result.applied && result.next.steps.every((s, i) => s.state === doc.steps[i]?.state);
    if (untouched && result.next.heldFor) for (const a of processing) draft.actions.splice(draft.actions.indexOf(a), 1);
    return result;
  }
  if (inGroup(doc)) return claimGroup(draft, why);
  if (step.kind === 'wait') return wakeWait(draft, why);
  if (step.kind === 'signal') return signalTimedOut(draft, why);
  if (isPaused(ctx, step.agent)) return holdForPause(draft, step.agent, why);
  draft.dispatch();
  return draft.finish(`${why}; dispatching ${step.name}`);
}
