import type { WorkflowDefinition } from './workflow-definition';

/** What a transition needs besides the process and the input. Time is a value: no clock inside. */
export interface TransitionContext {
  workflow: WorkflowDefinition;
  /** Milliseconds since the epoch. */
  now: number;
  /** Service instance making the transition (lock holder, history author). */
  who: string;
  /** Queue agents answer on. */
  replyQueue: string;
  /**
   * Agents an operator paused: a dispatch to one of them is held instead of sent (see
   * `holdForPause`). Read by the caller, possibly a little stale (a cache). @default none
   */
  pausedAgents?: ReadonlySet<string>;
}
