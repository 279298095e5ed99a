import type { AgentReply } from '@sas/contracts';

/** Everything that can happen to a process. Each is applied by {@link transition}. */
export type ProcessInput =
  /** A scheduler takes a Pending process whose notBefore has passed. */
  | { type: 'claim' }
  /** An agent answered the step currently held. */
  | { type: 'reply'; reply: AgentReply }
  /** The supervisor found the held step past its complete-by time. */
  | { type: 'expire' }
  /** An operator restarts an Error process from the step that failed. */
  | { type: 'resubmit'; by: string; reason?: string }
  /** An operator stops an unfinished process and undoes what it did. */
  | { type: 'cancel'; by: string; reason?: string };
