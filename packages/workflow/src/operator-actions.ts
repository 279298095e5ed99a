import { isTerminal, type ProcessDocument, type StepRecord } from '@sas/contracts';
import type { OperatorInput } from './process-input';
import { groupInFlightUntil, inGroup, lastMemberIndex } from './parallel-group';
import { ProcessDraft } from './process-draft';
import type { TransitionContext } from './transition-context';
import type { TransitionResult } from './transition-result';
import { entryRecords } from './workflow-entries';

/**
 * What the process already did for this operator command, when it is a repeat (the same
 * `commandId` redelivered after its answer was lost): the repeat must answer what the first one
 * did, not "refused". Checked inside the transition, so two deliveries racing each other agree.
 */
export function repeatedCommand(doc: ProcessDocument, input: OperatorInput): TransitionResult | null {
  if (!input.commandId) return null;
  const prior = doc.commands?.find((c) => c.id === input.commandId);
  if (!prior) return null;
  return { applied: false, reason: `command ${input.commandId} was applied before: ${prior.message}`, alreadyApplied: prior.message };
}

/** Restarts an Error process from the step that failed, with a fresh failure count. */
export function resubmit(doc: ProcessDocument, input: OperatorInput, ctx: TransitionContext): TransitionResult {
  if (doc.state !== 'Error') return { applied: false, reason: `only Error processes can be resubmitted; this one is ${doc.state}` };
  const draft = new ProcessDraft(doc, ctx);
  const step = draft.step();
  if (doc.mode === 'forward') {
    // Every record of the entry: a group's refused members start again, its members in doubt are sent again.
    for (const i of entryRecords(doc.steps, doc.currentStep)) restart(draft.step(i));
  }
  step.parkedSince = null;
  draft.doc.failureCount = 0;
  draft.doc.waits = 0;
  draft.doc.deleteTime = null;
  const because = input.reason ? `: ${input.reason}` : '';
  draft.doc.reason = `resubmitted by ${input.by}${because}`;
  draft.release(ctx.now);
  const why = `resubmitted by ${input.by} from ${step.group !== undefined && doc.mode === 'forward' ? `group ${step.group}` : step.name}${because}`;
  draft.recordCommand(input, why);
  return draft.finish(why);
}

/**
 * Stops an unfinished process and undoes what it did; it ends Canceled. A step in flight is
 * fenced off (its reply becomes stale) and compensated too, since its outcome is unknown.
 *
 * The undo of a step in flight must never overtake its forward call (refund before charge leaves
 * the charge in place), so the compensation is held until the in-flight attempt's complete-by:
 * by then the agent has stopped retrying and drops the request if it is still queued. The remote
 * is also told which forward key the undo is for, so it can refuse a forward call that still
 * arrives later (clock skew, a request already on the wire).
 */
export function cancel(doc: ProcessDocument, input: OperatorInput, ctx: TransitionContext): TransitionResult {
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
  draft.doc.reason = `canceled by ${input.by}${input.reason ? `: ${input.reason}` : ''}`;
  // A group's members in flight each until their own complete-by; the undo starts from its last member.
  const group = inGroup(doc);
  const held = group
    ? Math.max(ctx.now, groupInFlightUntil(doc))
    : doc.state === 'Processing' && doc.completeBy !== null
      ? doc.completeBy.getTime()
      : ctx.now;
  if (group) draft.doc.currentStep = lastMemberIndex(doc);
  // A dispatch whose send failed may have left all the same (see `undelivered`): wait for it too.
  const inFlightUntil = Math.max(held, doc.inFlightUntil?.getTime() ?? 0);
  const holdMs = Math.max(0, inFlightUntil - ctx.now);
  draft.release(ctx.now + holdMs);
  const why = holdMs > 0 ? `${draft.doc.reason}; undo held ${holdMs} ms until the in-flight attempt's complete-by` : draft.doc.reason;
  draft.recordCommand(input, why);
  return draft.finish(why);
}

/**
 * A record of the entry being resubmitted, ready to run again: refused starts anew, in doubt
 * (Running) is sent again under the same key, with a fresh failure count and parking window.
 */
function restart(step: StepRecord): void {
  if (step.state === 'Failed') {
    step.state = 'NotStarted';
    step.error = null;
    step.finishedAt = null;
  }
  if (step.group !== undefined) {
    step.completeBy = null;
    step.notBefore = null;
    step.failureCount = 0;
  }
  step.parkedSince = null;
}
