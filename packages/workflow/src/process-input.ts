import type { AgentReply, JsonObject } from '@sas/contracts';
import type { LiveAgents } from './expiry-reason';

/** Everything that can happen to a process. Each is applied by {@link transition}. */
export type ProcessInput =
  /** A scheduler takes a Pending process whose notBefore has passed. */
  | { type: 'claim' }
  /** An agent answered the step currently held. */
  | { type: 'reply'; reply: AgentReply }
  /**
   * The supervisor found the held step past its complete-by time. `liveAgents`, when it could read
   * them, lets the reason say that no live agent serves the step (see `expiryReason`).
   */
  | { type: 'expire'; liveAgents?: LiveAgents }
  /** An operator restarts an Error process from the step that failed. */
  | { type: 'resubmit'; by: string; reason?: string; commandId?: string }
  /** An operator stops an unfinished process and undoes what it did. */
  | { type: 'cancel'; by: string; reason?: string; commandId?: string }
  /**
   * The dispatch of `attempt` could not be sent (Redis unreachable): release the process for
   * another claim instead of holding it until complete-by and counting a failure.
   */
  | { type: 'undelivered'; attempt: number; error: string }
  /**
   * A named signal sent from outside (a customer's confirmation, an approval): it completes the
   * signal step waiting for that name, with `data` as its result, or is kept until one is reached.
   * `signalId`, chosen by the sender, makes a signal sent again a repeat.
   */
  | { type: 'signal'; signalId: string; name: string; data: JsonObject | null; by: string };

/** An operator command as the state machine sees it; `commandId` makes a redelivered command a repeat. */
export type OperatorInput = Extract<ProcessInput, { type: 'resubmit' | 'cancel' }>;
