import type { HandleOutcome } from './handle-outcome';

/**
 * Where an {@link AgentHost} reports each request its agents handled, for `/metrics`. An interface
 * so the agent classes stay free of any metrics library (a simulation passes none);
 * `PromAgentMetrics` implements it for {@link runAgent}. Calls must not throw.
 */
export interface AgentMetrics {
  /** `agent` finished a request with this outcome (its `calls` say how many reached the remote). */
  requestHandled(agent: string, outcome: HandleOutcome): void;
}
