import type { ProcessDocument } from '@sas/contracts';
import { continueCompensation } from './compensation';
import { holdForPause, isPaused } from './pause-hold';
import { ProcessDraft } from './process-draft';
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
  if (isPaused(ctx, step.agent)) return holdForPause(draft, step.agent, `claimed by ${ctx.who}`);
  if (doc.currentStep === 0 && step.dispatches === 0) draft.status('Processing');
  draft.dispatch();
  return draft.finish(`claimed by ${ctx.who}; dispatching ${step.name}`);
}
