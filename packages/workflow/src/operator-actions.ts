import { isTerminal, type ProcessDocument } from '@sas/contracts';
import { ProcessDraft } from './process-draft';
import type { TransitionContext } from './transition-context';
import type { TransitionResult } from './transition-result';

/** Restarts an Error process from the step that failed, with a fresh failure count. */
export function resubmit(doc: ProcessDocument, by: string, ctx: TransitionContext, reason?: string): TransitionResult {
  if (doc.state !== 'Error') return { applied: false, reason: `only Error processes can be resubmitted; this one is ${doc.state}` };
  const draft = new ProcessDraft(doc, ctx);
  const step = draft.step();
  if (doc.mode === 'forward' && step.state === 'Failed') {
    step.state = 'NotStarted';
    step.error = null;
    step.finishedAt = null;
  }
  draft.doc.failureCount = 0;
  draft.doc.waits = 0;
  draft.doc.deleteTime = null;
  const because = reason ? `: ${reason}` : '';
  draft.doc.reason = `resubmitted by ${by}${because}`;
  draft.release(ctx.now);
  return draft.finish(`resubmitted by ${by} from ${step.name}${because}`);
}

/**
 * Stops an unfinished process and undoes what it did; it ends Canceled. A step in flight is
 * fenced off (its reply becomes stale) and compensated too, since its outcome is unknown.
 */
export function cancel(doc: ProcessDocument, by: string, reason: string | undefined, ctx: TransitionContext): TransitionResult {
  // A Compensated or Canceled process is finished, not "being undone": say so rather than suggest a resubmit.
  if (doc.mode === 'compensate' && !isTerminal(doc.state)) {
    return { applied: false, reason: `process is already being undone (${doc.state}); resubmit it if compensation failed` };
  }
  if (doc.state !== 'Pending' && doc.state !== 'Processing' && doc.state !== 'Error') {
    return { applied: false, reason: `process is ${doc.state}; only unfinished processes can be canceled` };
  }
  const draft = new ProcessDraft(doc, ctx);
  draft.doc.canceled = true;
  draft.doc.mode = 'compensate';
  draft.doc.failureCount = 0;
  draft.doc.deleteTime = null;
  draft.doc.reason = `canceled by ${by}${reason ? `: ${reason}` : ''}`;
  draft.release(ctx.now);
  return draft.finish(draft.doc.reason);
}
