import type { ProcessDocument } from '@sas/contracts';
import { holdForPause, isPaused } from './pause-hold';
import type { ProcessDraft } from './process-draft';
import type { TransitionResult } from './transition-result';

/**
 * A held step failed without a definite answer (complete-by passed, or the agent ran out of
 * retries). Below the threshold the process goes back to Pending for another attempt; at the
 * threshold the workflow's policy decides. The supervisor knows nothing of business operations:
 * it only decides "retry" or "apply the failure policy".
 */
export function recoverFailure(draft: ProcessDraft, reason: string): TransitionResult {
  const doc = draft.doc;
  const { workflow, now } = draft.ctx;
  const stepName = draft.step().name;
  const agent = draft.step().agent;
  // Its agent is paused (an outage or maintenance an operator knows of): not the step's failure.
  if (isPaused(draft.ctx, agent)) return holdForPause(draft, agent, `${reason}; not counted as a failure`);
  doc.failureCount += 1;
  doc.reason = `${stepName}: ${reason}`;
  if (doc.failureCount < workflow.failureThreshold) {
    draft.release(now);
    return draft.finish(`${reason}; failure ${doc.failureCount} of ${workflow.failureThreshold}, retrying`);
  }
  return thresholdReached(draft, `${stepName} failed ${doc.failureCount} times (last: ${reason})`, reason);
}

/**
 * The held step will not be retried as it is: it failed `failureThreshold` times, or stayed
 * parked past the workflow's parking bound. A compensation goes to Error for an operator; a
 * forward step gets the workflow's threshold policy. `at` describes what happened, for the alert.
 */
export function thresholdReached(draft: ProcessDraft, at: string, reason: string): TransitionResult {
  const doc = draft.doc;
  const { workflow, now } = draft.ctx;
  const stepName = draft.step().name;
  // A new window of parking starts after whatever the policy does next.
  draft.step().parkedSince = null;
  if (doc.mode === 'compensate') {
    draft.settle('Error');
    draft.alert('CompensationFailed', `${at}; compensation cannot finish, an operator must resolve it`);
    draft.status('Failed', { step: stepName, reason: `compensation failed: ${at}` });
    return draft.finish(`${reason}; compensation threshold reached`);
  }
  const policy = workflow.onThreshold;
  switch (policy.policy) {
    case 'wait':
      if (doc.waits < policy.maxWaits) {
        doc.waits += 1;
        // Alert before resetting the count, so the operator sees the count that reached the threshold.
        draft.alert('ThresholdReached', `${at}; waiting ${policy.waitMs} ms before retrying (wait ${doc.waits} of ${policy.maxWaits})`);
        doc.failureCount = 0;
        draft.release(now + policy.waitMs);
        return draft.finish(`${reason}; threshold reached, extended wait ${doc.waits}`);
      }
      return toError(draft, at, `${reason}; threshold reached after ${policy.maxWaits} extended waits`);
    case 'error':
      return toError(draft, at, `${reason}; threshold reached`);
    case 'compensate':
      draft.alert('ThresholdReached', `${at}; compensating`);
      doc.failureCount = 0;
      draft.status('Failed', { step: stepName, reason: at });
      // Hand the undo to a scheduler (Pending, mode compensate): the supervisor only decides, it never dispatches.
      doc.mode = 'compensate';
      draft.release(now);
      return draft.finish(`${reason}; threshold reached, compensation pending`);
  }
}

function toError(draft: ProcessDraft, at: string, why: string): TransitionResult {
  draft.settle('Error');
  draft.alert('ThresholdReached', `${at}; process is in Error: resubmit or cancel it`);
  draft.status('Failed', { step: draft.step().name, reason: at });
  return draft.finish(why);
}

/** Whether the supervisor may recover this process now. */
export function isExpired(doc: ProcessDocument, now: number): boolean {
  return (
    (doc.state === 'Processing' || doc.state === 'Compensating') && doc.completeBy !== null && doc.completeBy.getTime() <= now
  );
}
