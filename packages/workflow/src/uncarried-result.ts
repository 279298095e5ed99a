import { stepResultProblem, type AgentReplyOk } from '@sas/contracts';
import { continueCompensation } from './compensation';
import type { ProcessDraft } from './process-draft';
import type { TransitionResult } from './transition-result';

/**
 * Why the result of a successful reply cannot be stored and passed to later steps, or null when
 * it can: the agent said so (`resultRefused`), or it did not check (an older agent) and the result
 * breaks the size or depth limit of `stepResultProblem`.
 */
export function uncarriedResultProblem(reply: AgentReplyOk): string | null {
  if (reply.resultRefused !== undefined) return reply.resultRefused || 'the agent refused to carry it';
  return stepResultProblem(reply.result);
}

/**
 * The held forward step took effect, but its result cannot be carried; the caller has marked it
 * Completed with a null result (its outcome unknown to later steps). Later steps may need that
 * result, and retrying cannot shrink it (the remote answers a repeat with the same result), so
 * the order is undone, whatever the workflow's `onPermanentFailure` says: stopping in Error would
 * leave an operator a process that can neither go on nor be resubmitted. As the step is
 * Completed, the compensation walk starts with its own undo, which gets `compensates.result:
 * null`. The result itself is never stored: only the reason is, in the process's reason, the
 * history, the alert and the status event.
 */
export function undoUncarriedResult(draft: ProcessDraft, problem: string, from: string): TransitionResult {
  const step = draft.step();
  const what = `${step.name} returned a result that cannot be carried (${problem})`;
  draft.doc.reason = what;
  draft.alert('StepResultRefused', `${what}; its effect happened, so the order is being undone`);
  draft.status('Failed', { step: step.name, reason: what });
  // The undo starts its own count, as after a permanent refusal.
  draft.doc.failureCount = 0;
  return continueCompensation(draft, draft.doc.currentStep, `${from}: ${what}; undoing the order`);
}
