import type { ProcessDraft } from './process-draft';
import type { TransitionContext } from './transition-context';
import type { TransitionResult } from './transition-result';

/**
 * The `notBefore` of a process held for a paused agent: no claim poll ever reaches it. Only the
 * release of held work (after the agent is resumed) claims it, at a bounded rate.
 */
export const HELD_UNTIL_RESUMED = new Date('9999-12-31T23:59:59.999Z');

/** Whether an operator paused this agent, as the caller read it (see `TransitionContext.pausedAgents`). */
export function isPaused(ctx: TransitionContext, agent: string): boolean {
  return ctx.pausedAgents?.has(agent) ?? false;
}

/**
 * Holds the process instead of dispatching to a paused agent: Pending, nothing in flight (no
 * complete-by, so the supervisor has nothing to recover), no failure counted, no retry or parking
 * budget spent. The attempt moves on, as on every release, so any reply of an earlier attempt is
 * stale. The step keeps its state: a step whose outcome is unknown stays in doubt, and is sent
 * again under the same idempotency key once the agent is resumed.
 */
export function holdForPause(draft: ProcessDraft, agent: string, why: string): TransitionResult {
  const doc = draft.doc;
  doc.state = 'Pending';
  doc.attempt += 1;
  doc.lockedBy = null;
  doc.completeBy = null;
  doc.notBefore = new Date(HELD_UNTIL_RESUMED);
  doc.heldFor = agent;
  // Time spent held is not time parked: the step gets a fresh parking window when it runs again.
  draft.step().parkedSince = null;
  const what = doc.mode === 'forward' ? draft.step().name : `undo of ${draft.step().name}`;
  return draft.finish(`${why}; ${what} held: agent ${agent} is paused`);
}
