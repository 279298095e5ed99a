import type { AgentReply, ProcessDocument } from '@sas/contracts';
import { continueCompensation } from './compensation';
import { holdForPause, isPaused } from './pause-hold';
import { keepInFlight } from './in-flight';
import { applyMemberReply, memberStaleReason } from './parallel-group';
import { ProcessDraft } from './process-draft';
import { startStage } from './start-stage';
import { nextEntryIndex } from './workflow-entries';
import { recoverFailure, thresholdReached } from './recover';
import { maxParkedMs } from './workflow-definition';
import type { TransitionContext } from './transition-context';
import type { TransitionResult } from './transition-result';
import { uncarriedResultProblem, undoUncarriedResult } from './uncarried-result';

/** Why a reply does not apply, or null when it is current. Replies are fenced by (step, mode, attempt). */
export function staleReason(doc: ProcessDocument, reply: AgentReply): string | null {
  const held = reply.mode === 'forward' ? 'Processing' : 'Compensating';
  if (doc.state !== held) return `process is ${doc.state}, not ${held}`;
  if (doc.mode !== reply.mode) return `process mode is ${doc.mode}, reply is for ${reply.mode}`;
  if (doc.attempt !== reply.attempt) return `attempt ${reply.attempt} is not current (${doc.attempt})`;
  if (doc.currentStep !== reply.stepIndex || doc.steps[doc.currentStep]?.name !== reply.step) {
    return `step ${reply.step}#${reply.stepIndex} is not current (#${doc.currentStep})`;
  }
  return null;
}

/** Applies an agent's answer to the held step; stale answers change nothing. */
export function applyReply(doc: ProcessDocument, reply: AgentReply, ctx: TransitionContext): TransitionResult {
  // A forward reply to a parallel group's member is fenced by that member's own attempt.
  if (reply.mode === 'forward' && doc.steps[reply.stepIndex]?.group !== undefined) {
    const staleMember = memberStaleReason(doc, reply);
    if (staleMember) return { applied: false, reason: `stale reply from ${reply.agentInstance}: ${staleMember}` };
    return applyMemberReply(new ProcessDraft(doc, ctx), reply);
  }
  const stale = staleReason(doc, reply);
  if (stale) return { applied: false, reason: `stale reply from ${reply.agentInstance}: ${stale}` };
  const draft = new ProcessDraft(doc, ctx);
  const step = draft.step();
  const from = `${reply.outcome} from ${reply.agentInstance} for ${step.name}#${reply.attempt}`;
  switch (reply.outcome) {
    case 'ok': {
      draft.doc.failureCount = 0;
      step.finishedAt = draft.now;
      step.error = null;
      step.parkedSince = null;
      if (reply.mode === 'compensate') {
        step.state = 'Compensated';
        return continueCompensation(draft, draft.doc.currentStep - 1, from);
      }
      // The remote took effect either way. A result that cannot be carried is never stored (later
      // steps see null, "outcome unknown"), and the order is undone.
      const problem = uncarriedResultProblem(reply);
      step.state = 'Completed';
      step.result = problem === null ? reply.result : null;
      if (problem !== null) return undoUncarriedResult(draft, problem, from);
      draft.status('StepCompleted', { step: step.name });
      return startStage(draft, nextEntryIndex(draft.doc.steps, draft.doc.currentStep), from);
    }
    case 'parked': {
      // The agent may still call under this attempt (its reply's send may have failed: redelivery).
      keepInFlight(draft);
      // Its agent is paused meanwhile: held, so time parked during the pause never reaches the parking bound.
      if (isPaused(ctx, step.agent)) return holdForPause(draft, step.agent, `${from}: ${reply.reason}`);
      // The remote's circuit is open: hold the step without counting a failure, but not for ever.
      const since = step.parkedSince ?? draft.now;
      step.parkedSince = since;
      const parkedMs = ctx.now - since.getTime();
      const limit = maxParkedMs(ctx.workflow);
      if (parkedMs >= limit) {
        const at = `${step.name} stayed parked for ${parkedMs} ms (bound ${limit} ms; last: ${reply.reason})`;
        draft.doc.reason = at;
        return thresholdReached(draft, at, `${from}: parking bound reached`);
      }
      draft.doc.reason = `${step.name}: ${reply.reason}`;
      draft.release(ctx.now + reply.retryAfterMs);
      return draft.finish(`${from}: ${reply.reason}; parked for ${reply.retryAfterMs} ms (parked ${parkedMs} of ${limit} ms)`);
    }
    case 'error':
      if (reply.errorKind === 'transient') {
        keepInFlight(draft);
        return recoverFailure(draft, `agent gave up: ${reply.message}`);
      }
      step.error = reply.message;
      step.finishedAt = draft.now;
      draft.doc.reason = `${step.name}: ${reply.message}`;
      if (reply.mode === 'compensate') {
        draft.settle('Error');
        draft.alert('CompensationFailed', `${step.name} compensation refused: ${reply.message}; an operator must resolve it`);
        draft.status('Failed', { step: step.name, reason: `compensation refused: ${reply.message}` });
        return draft.finish(`${from}: compensation refused`);
      }
      step.state = 'Failed';
      draft.status('Failed', { step: step.name, reason: reply.message });
      if (ctx.workflow.onPermanentFailure === 'error') {
        draft.settle('Error');
        draft.alert('ProcessError', `${step.name} refused: ${reply.message}; resubmit or cancel the process`);
        return draft.finish(`${from}: permanent failure`);
      }
      // The undo starts its own count: timeouts of the refused step must not eat the compensation's retries.
      draft.doc.failureCount = 0;
      return continueCompensation(draft, draft.doc.currentStep, `${from}: permanent failure`);
  }
}
