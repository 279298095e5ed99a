import type { ProcessDocument } from '@sas/contracts';
import { keepInFlight } from './in-flight';
import { inGroup, undeliveredMember } from './parallel-group';
import { ProcessDraft } from './process-draft';
import type { TransitionContext } from './transition-context';
import type { TransitionResult } from './transition-result';

/** How long a process whose dispatch could not be sent waits before it is claimable again. */
export const UNDELIVERED_RETRY_MS = 1000;

/**
 * The scheduler committed a dispatch but could not send it (Redis unreachable, the send timed
 * out). Holding the process until complete-by would burn a failure for a step that never left,
 * so it goes back to Pending for another claim, without counting a failure. If the send did
 * leave after all (a timed-out command that Redis ran later), its reply is stale (new attempt)
 * and the remote replays the effect under the same idempotency key: nothing is done twice. But
 * its forward call may still land until that attempt's complete-by, so `inFlightUntil` keeps that
 * time and no undo is dispatched before it (an undo that overtook it would leave its effect).
 */
export function undelivered(doc: ProcessDocument, attempt: number, error: string, ctx: TransitionContext): TransitionResult {
  // A group member's send: fenced by the member's own attempt, whether the process is Processing or Pending.
  if (inGroup(doc)) {
    const released = doc.state === 'Processing' || doc.state === 'Pending' ? undeliveredMember(new ProcessDraft(doc, ctx), attempt, error, UNDELIVERED_RETRY_MS) : null;
    return released ?? { applied: false, reason: `attempt ${attempt} is not a member of the current group in flight (state ${doc.state})` };
  }
  const held = doc.state === 'Processing' || doc.state === 'Compensating';
  if (!held || doc.attempt !== attempt || doc.lockedBy !== ctx.who) {
    return { applied: false, reason: `attempt ${attempt} is no longer held by ${ctx.who} (state ${doc.state}, attempt ${doc.attempt})` };
  }
  const draft = new ProcessDraft(doc, ctx);
  const step = draft.step().name;
  draft.doc.reason = `${step}: dispatch not sent (${error})`;
  keepInFlight(draft);
  draft.release(ctx.now + UNDELIVERED_RETRY_MS);
  return draft.finish(`dispatch of ${step}#${attempt} not sent (${error}); released for another claim in ${UNDELIVERED_RETRY_MS} ms`);
}
