import type { AgentRequest, Alert, StatusEvent } from '@sas/contracts';

/** Side effects a transition asks for. The caller performs them after the state is committed. */
export type Action =
  /** Send a step (or compensation) to its agent. */
  | { type: 'dispatch'; queue: string; request: AgentRequest }
  /** Tell the submitting application. */
  | { type: 'status'; replyTo: string; event: StatusEvent }
  /** Tell an operator. */
  | { type: 'alert'; alert: Alert }
  /** The process becomes claimable at `atMs`: wake a scheduler then. */
  | { type: 'wake'; atMs: number };
