import type { AgentReply, ProcessDocument, StepRecord } from '@sas/contracts';
import { continueCompensation } from './compensation';
import { expiryReason, type LiveAgents } from './expiry-reason';
import { holdForPause, isPaused } from './pause-hold';
import type { ProcessDraft } from './process-draft';
import type { StartEntry } from './start-entry';
import type { TransitionResult } from './transition-result';
import { uncarriedResultProblem } from './uncarried-result';
import { maxParkedMs } from './workflow-definition';
import { entryRecords, nextEntryIndex } from './workflow-entries';

/*
 * A parallel group runs its members at the same time, each with its own fence (`attempt`), its
 * own complete-by and its own failure count, so one member's retry never makes a sibling's reply
 * stale. A member is in one of these conditions while the group is current (forward):
 * - NotStarted: not dispatched yet (its agent was paused when the group started);
 * - in flight: Running with a complete-by;
 * - waiting: Running without a complete-by (recovered, parked, or its send failed; its outcome is
 *   in doubt), dispatched again at its `notBefore`;
 * - Completed, or Failed (refused: the group fails).
 * The process is Processing while members are in flight and none waits, Pending while one waits
 * (its notBefore is the earliest a waiting member is due or an in-flight one expires, so the claim
 * that dispatches the waiting member also recovers an expired sibling), held when only members of
 * paused agents are left. Replies of in-flight members are applied in either state.
 */

/** Whether the record at `index` is a member of the current group, the process going forward. */
function isCurrentMember(doc: ProcessDocument, index: number): boolean {
  const record = doc.steps[index];
  return doc.mode === 'forward' && record?.group !== undefined && record.group === doc.steps[doc.currentStep]?.group;
}

/** Whether the current entry is a parallel group (going forward). */
export function inGroup(doc: ProcessDocument): boolean {
  return isCurrentMember(doc, doc.currentStep);
}

function inFlight(step: StepRecord): boolean {
  return step.state === 'Running' && step.completeBy != null;
}

function waiting(step: StepRecord): boolean {
  return step.state === 'NotStarted' || (step.state === 'Running' && step.completeBy == null);
}

/**
 * Begins the parallel group whose first member is at `index`: every member whose agent is not
 * paused is dispatched in this one transition, each with its own fence, complete-by and
 * idempotency key. Members of a paused agent stay NotStarted until it is resumed; when every
 * member's agent is paused the process is held as for a single step.
 */
export function startGroup(draft: ProcessDraft, index: number, why: string, startEntry: StartEntry): TransitionResult {
  const members = entryRecords(draft.doc.steps, index);
  for (const i of members) draft.step(i).failureCount = 0;
  const ready = members.filter((i) => !isPaused(draft.ctx, draft.step(i).agent));
  for (const i of ready) draft.dispatch(i);
  const group = draft.step(index).group ?? draft.step(index).name;
  const names = ready.map((i) => draft.step(i).name);
  return settleGroup(draft, ready.length > 0 ? `${why}; dispatching group ${group}: ${names.join(', ')}` : why, startEntry);
}

/**
 * A claim of a Pending process whose current group has begun: recovers members in flight past
 * their complete-by (the supervisor sweeps only Processing processes), then dispatches the
 * waiting members that are due and whose agent is not paused. Members in flight are left alone.
 */
export function claimGroup(draft: ProcessDraft, why: string, startEntry: StartEntry): TransitionResult {
  const members = entryRecords(draft.doc.steps, draft.doc.currentStep);
  const expired = expireMembers(draft, members, why);
  if (expired.result) return expired.result;
  const now = draft.ctx.now;
  const due = members.filter((i) => {
    const s = draft.step(i);
    return waiting(s) && (s.notBefore?.getTime() ?? now) <= now && !isPaused(draft.ctx, s.agent);
  });
  for (const i of due) draft.dispatch(i);
  const sent = due.length > 0 ? `; dispatching ${due.map((i) => draft.step(i).name).join(', ')}` : '';
  return settleGroup(draft, `${expired.why}${sent}`, startEntry);
}

/** The supervisor found a member in flight past its complete-by: each such member is recovered. */
export function expireGroup(draft: ProcessDraft, startEntry: StartEntry, live?: LiveAgents): TransitionResult {
  const members = entryRecords(draft.doc.steps, draft.doc.currentStep);
  const expired = expireMembers(draft, members, 'complete-by passed', live);
  return expired.result ?? settleGroup(draft, expired.why, startEntry);
}

/** Recovers every member in flight past its complete-by; a result when one ended the group. */
function expireMembers(draft: ProcessDraft, members: number[], why: string, live?: LiveAgents): { why: string; result?: TransitionResult } {
  let said = why;
  for (const i of members) {
    const s = draft.step(i);
    if (!inFlight(s) || (s.completeBy?.getTime() ?? Infinity) > draft.ctx.now) continue;
    const outcome = recoverMember(draft, i, expiryReason(s, live));
    if (typeof outcome !== 'string') return { why: said, result: outcome };
    said = `${said}; ${outcome}`;
  }
  return { why: said };
}

/** Why a reply to a group member does not apply, or null when it is current (the per-member fence). */
export function memberStaleReason(doc: ProcessDocument, reply: AgentReply): string | null {
  const step = doc.steps[reply.stepIndex];
  if (!step || step.name !== reply.step) return `step ${reply.step}#${reply.stepIndex} is not in this process`;
  if (!isCurrentMember(doc, reply.stepIndex)) return `${reply.step} is not a member of the current group (#${doc.currentStep}, mode ${doc.mode})`;
  if (doc.state !== 'Processing' && doc.state !== 'Pending') return `process is ${doc.state}`;
  if (!inFlight(step)) return `${reply.step} is ${step.state === 'Running' ? 'waiting to be sent again' : step.state}`;
  if (step.attempt !== reply.attempt) return `attempt ${reply.attempt} is not ${reply.step}'s current one (${step.attempt ?? 'none'})`;
  return null;
}

/** Applies a current reply to a group member (see {@link memberStaleReason}). */
export function applyMemberReply(draft: ProcessDraft, reply: AgentReply, startEntry: StartEntry): TransitionResult {
  const index = reply.stepIndex;
  const step = draft.step(index);
  const from = `${reply.outcome} from ${reply.agentInstance} for ${step.name}#${reply.attempt}`;
  switch (reply.outcome) {
    case 'ok': {
      step.finishedAt = draft.now;
      step.error = null;
      step.parkedSince = null;
      step.completeBy = null;
      step.notBefore = null;
      step.failureCount = 0;
      mirrorFailureCount(draft);
      const problem = uncarriedResultProblem(reply);
      step.state = 'Completed';
      step.result = problem === null ? reply.result : null;
      if (problem !== null) {
        const what = `${step.name} returned a result that cannot be carried (${problem})`;
        draft.doc.reason = what;
        draft.alert('StepResultRefused', `${what}; its effect happened, so the order is being undone`, index);
        draft.status('Failed', { step: step.name, reason: what });
        return failGroup(draft, 'compensate', `${from}: ${what}; undoing the order`);
      }
      draft.status('StepCompleted', { step: step.name });
      return settleGroup(draft, from, startEntry);
    }
    case 'parked': {
      // The agent may still call under this attempt until its complete-by (a redelivered request).
      keepMemberInFlight(draft, index);
      step.completeBy = null;
      if (isPaused(draft.ctx, step.agent)) {
        step.notBefore = null;
        return settleGroup(draft, `${from}: ${reply.reason}; held: agent ${step.agent} is paused`, startEntry);
      }
      const since = step.parkedSince ?? draft.now;
      step.parkedSince = since;
      const parkedMs = draft.ctx.now - since.getTime();
      const limit = maxParkedMs(draft.ctx.workflow);
      if (parkedMs >= limit) {
        const at = `${step.name} stayed parked for ${parkedMs} ms (bound ${limit} ms; last: ${reply.reason})`;
        draft.doc.reason = at;
        const outcome = memberThreshold(draft, index, at, `${from}: parking bound reached`);
        return typeof outcome === 'string' ? settleGroup(draft, outcome, startEntry) : outcome;
      }
      draft.doc.reason = `${step.name}: ${reply.reason}`;
      step.notBefore = new Date(draft.ctx.now + reply.retryAfterMs);
      return settleGroup(draft, `${from}: ${reply.reason}; ${step.name} parked for ${reply.retryAfterMs} ms (parked ${parkedMs} of ${limit} ms)`, startEntry);
    }
    case 'error': {
      if (reply.errorKind === 'transient') {
        keepMemberInFlight(draft, index);
        const outcome = recoverMember(draft, index, `agent gave up: ${reply.message}`);
        return typeof outcome === 'string' ? settleGroup(draft, `${from}; ${outcome}`, startEntry) : outcome;
      }
      step.state = 'Failed';
      step.error = reply.message;
      step.finishedAt = draft.now;
      step.completeBy = null;
      draft.doc.reason = `${step.name}: ${reply.message}`;
      draft.status('Failed', { step: step.name, reason: reply.message });
      if (draft.ctx.workflow.onPermanentFailure === 'error') {
        draft.alert('ProcessError', `${step.name} refused: ${reply.message}; resubmit or cancel the process`, index);
        return failGroup(draft, 'error', `${from}: permanent failure`);
      }
      return failGroup(draft, 'compensate', `${from}: permanent failure`);
    }
  }
}

/**
 * A member failed without a definite answer: below the threshold it alone waits to be sent again
 * (now); at the threshold the workflow's policy applies. Its agent paused: held, not counted.
 * Returns what happened, or the finished transition when the group ended.
 */
function recoverMember(draft: ProcessDraft, index: number, reason: string): string | TransitionResult {
  const step = draft.step(index);
  const { workflow, now } = draft.ctx;
  keepMemberInFlight(draft, index);
  step.completeBy = null;
  if (isPaused(draft.ctx, step.agent)) {
    step.notBefore = null;
    return `${step.name}: ${reason}; held: agent ${step.agent} is paused, not counted as a failure`;
  }
  step.failureCount = (step.failureCount ?? 0) + 1;
  mirrorFailureCount(draft);
  draft.doc.reason = `${step.name}: ${reason}`;
  if (step.failureCount < workflow.failureThreshold) {
    step.notBefore = new Date(now);
    return `${step.name}: ${reason}; failure ${step.failureCount} of ${workflow.failureThreshold}, retrying it`;
  }
  return memberThreshold(draft, index, `${step.name} failed ${step.failureCount} times (last: ${reason})`, `${step.name}: ${reason}`);
}

/** A member reached the threshold (failures or parking): the workflow's threshold policy, for the whole group. */
function memberThreshold(draft: ProcessDraft, index: number, at: string, reason: string): string | TransitionResult {
  const doc = draft.doc;
  const step = draft.step(index);
  const { workflow, now } = draft.ctx;
  step.parkedSince = null;
  const policy = workflow.onThreshold;
  switch (policy.policy) {
    case 'wait':
      if (doc.waits < policy.maxWaits) {
        doc.waits += 1;
        draft.alert('ThresholdReached', `${at}; waiting ${policy.waitMs} ms before retrying (wait ${doc.waits} of ${policy.maxWaits})`, index);
        step.failureCount = 0;
        mirrorFailureCount(draft);
        step.notBefore = new Date(now + policy.waitMs);
        return `${reason}; threshold reached, extended wait ${doc.waits} for ${step.name}`;
      }
      draft.alert('ThresholdReached', `${at}; process is in Error: resubmit or cancel it`, index);
      draft.status('Failed', { step: step.name, reason: at });
      return failGroup(draft, 'error', `${reason}; threshold reached after ${policy.maxWaits} extended waits`);
    case 'error':
      draft.alert('ThresholdReached', `${at}; process is in Error: resubmit or cancel it`, index);
      draft.status('Failed', { step: step.name, reason: at });
      return failGroup(draft, 'error', `${reason}; threshold reached`);
    case 'compensate':
      draft.alert('ThresholdReached', `${at}; compensating`, index);
      draft.status('Failed', { step: step.name, reason: at });
      // Hand the undo to a scheduler (Pending): the supervisor only decides, it never dispatches.
      return failGroup(draft, 'compensate-later', `${reason}; threshold reached, compensation pending`);
  }
}

/**
 * The group failed: `error` stops the process for an operator (members in flight stay Running,
 * in doubt, and are sent again on a resubmit); `compensate` undoes the Completed and in-doubt
 * members, then the earlier steps, from the group's last member backward. No undo is sent before
 * every member in flight has passed its complete-by (`inFlightUntil`): an undo that overtook its
 * own forward call would leave the effect in place.
 */
function failGroup(draft: ProcessDraft, how: 'error' | 'compensate' | 'compensate-later', why: string): TransitionResult {
  const doc = draft.doc;
  const members = entryRecords(doc.steps, doc.currentStep);
  for (const i of members) keepMemberInFlight(draft, i);
  if (how === 'error') {
    draft.settle('Error');
    return draft.finish(why);
  }
  doc.failureCount = 0;
  doc.currentStep = members[members.length - 1] ?? doc.currentStep;
  if (how === 'compensate-later') {
    doc.mode = 'compensate';
    draft.release(draft.ctx.now);
    return draft.finish(why);
  }
  return continueCompensation(draft, doc.currentStep, why);
}

/**
 * Where the group stands after a change: every member Completed starts the next entry
 * (`startEntry`); a member waiting (and its agent not paused) makes the process Pending until the
 * earliest due time; only members in flight keep it Processing until the earliest complete-by;
 * only members of paused agents left hold it until they are resumed.
 */
function settleGroup(draft: ProcessDraft, why: string, startEntry: StartEntry): TransitionResult {
  const doc = draft.doc;
  const members = entryRecords(doc.steps, doc.currentStep).map((i) => draft.step(i));
  const first = entryRecords(doc.steps, doc.currentStep)[0] ?? doc.currentStep;
  if (members.every((s) => s.state === 'Completed')) return startEntry(draft, nextEntryIndex(doc.steps, first), `${why}; group ${members[0]?.group} done`);
  doc.currentStep = first;
  const flying = members.filter(inFlight);
  const due = members.filter((s) => waiting(s) && !isPaused(draft.ctx, s.agent));
  const earliestFlying = Math.min(...flying.map((s) => s.completeBy?.getTime() ?? Infinity));
  if (due.length > 0) {
    const earliestDue = Math.min(...due.map((s) => s.notBefore?.getTime() ?? draft.ctx.now));
    draft.release(Math.min(earliestDue, earliestFlying));
    return draft.finish(`${why}; waiting to send ${due.map((s) => s.name).join(', ')}`);
  }
  if (flying.length > 0) {
    doc.state = 'Processing';
    doc.lockedBy ??= draft.ctx.who;
    doc.completeBy = new Date(earliestFlying);
    if (doc.heldFor) doc.heldFor = null;
    return draft.finish(why);
  }
  const held = entryRecords(doc.steps, first).find((i) => waiting(draft.step(i)));
  if (held !== undefined) {
    doc.currentStep = held;
    return holdForPause(draft, draft.step(held).agent, why);
  }
  // Not reached: a member neither Completed, in flight nor waiting is Failed, and failGroup ended the group.
  throw new Error(`Process ${doc._id}: group ${members[0]?.group} has no member to wait for`);
}

/**
 * Records that the member's request may still reach its remote until its complete-by although it
 * is no longer awaited, so no undo is dispatched before then (see `keepInFlight`).
 */
function keepMemberInFlight(draft: ProcessDraft, index: number): void {
  const step = draft.step(index);
  if (step.state !== 'Running' || !step.completeBy) return;
  const until = step.completeBy.getTime();
  if (until > (draft.doc.inFlightUntil?.getTime() ?? 0)) draft.doc.inFlightUntil = new Date(until);
}

/** The process's failure count mirrors the highest of the current group's members'. */
function mirrorFailureCount(draft: ProcessDraft): void {
  const members = entryRecords(draft.doc.steps, draft.doc.currentStep).map((i) => draft.step(i));
  draft.doc.failureCount = Math.max(0, ...members.map((s) => s.failureCount ?? 0));
}

/**
 * A member's dispatch could not be sent: that member alone waits a moment and is sent again; its
 * request may have left all the same, so no undo goes before its complete-by. Null when no
 * in-flight member of the current group has that attempt.
 */
export function undeliveredMember(draft: ProcessDraft, attempt: number, error: string, retryMs: number, startEntry: StartEntry): TransitionResult | null {
  const doc = draft.doc;
  if (!inGroup(doc)) return null;
  const index = entryRecords(doc.steps, doc.currentStep).find((i) => {
    const s = draft.step(i);
    return inFlight(s) && s.attempt === attempt;
  });
  if (index === undefined) return null;
  const step = draft.step(index);
  keepMemberInFlight(draft, index);
  step.completeBy = null;
  step.notBefore = new Date(draft.ctx.now + retryMs);
  doc.reason = `${step.name}: dispatch not sent (${error})`;
  return settleGroup(draft, `dispatch of ${step.name}#${attempt} not sent (${error}); sent again in ${retryMs} ms`, startEntry);
}

/** The latest complete-by of the current group's members in flight, 0 when none is. */
export function groupInFlightUntil(doc: ProcessDocument): number {
  if (!inGroup(doc)) return 0;
  return Math.max(0, ...entryRecords(doc.steps, doc.currentStep).map((i) => (doc.steps[i] && inFlight(doc.steps[i]) ? (doc.steps[i].completeBy?.getTime() ?? 0) : 0)));
}

/** The index of the current group's last member: where undoing it starts. */
export function lastMemberIndex(doc: ProcessDocument): number {
  const members = entryRecords(doc.steps, doc.currentStep);
  return members[members.length - 1] ?? doc.currentStep;
}
