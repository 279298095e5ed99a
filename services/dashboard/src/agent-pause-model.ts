import type { AgentPauseAction, AgentPauseChange, AgentPauseRequest } from '@sas/contracts';

/** One agent as `GET /api/agents` shows it. */
export interface AgentView {
  agent: string;
  paused: boolean;
  /** Who made the latest change and why; null for an agent never paused. */
  by: string | null;
  reason: string | null;
  /** When the current state began (ISO); null for an agent never paused. */
  since: string | null;
  /** Pending processes held for this agent (while paused, or not yet released after a resume). */
  held: number;
  /** The latest pauses and resumes, newest last. */
  history: (Omit<AgentPauseAction, 'at'> & { at: string })[];
}

/**
 * The agents an operator may pause and their pause state. The dashboard writes a pause itself
 * (the agent's document in `agent_pauses`): a pause is not process state, every process change it
 * causes is still made by the schedulers' engine, and it must work while no scheduler answers.
 */
export interface AgentPauseModel {
  /** The configured agents and any other agent ever paused, by name. */
  list(): Promise<AgentView[]>;
  /** Whether `agent` may be paused here: configured (AGENTS) or already paused once. */
  knows(agent: string): Promise<boolean>;
  /** Pauses or resumes the agent (see `setAgentPause`). */
  set(request: AgentPauseRequest): Promise<AgentPauseChange>;
}
