import { Counter, Gauge, type Registry } from 'prom-client';
import type { AgentMetrics } from './agent-metrics';
import type { BreakerSnapshot, Breakers } from './breakers';
import type { HandleOutcome } from './handle-outcome';

/** The breaker gauge's values: ordered so that "higher is worse" reads right on a graph. */
const BREAKER_STATE_VALUE: Record<BreakerSnapshot['state'], number> = { closed: 0, halfOpen: 1, open: 2 };

/**
 * The agent's series on a registry: requests by outcome, remote calls and retries (from each
 * outcome's `calls`), and the breaker state of each agent, kept from the breakers' state-change
 * events.
 */
export class PromAgentMetrics implements AgentMetrics {
  private readonly requests: Counter<'agent' | 'outcome'>;
  private readonly calls: Counter<'agent'>;
  private readonly retries: Counter<'agent'>;
  private readonly breakerState: Gauge<'agent'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.requests = new Counter({
      name: 'sas_agent_requests_total',
      help: 'Step requests an agent finished, by agent and outcome (replied-ok, replied-error, parked, expired-before-start, expired-silent)',
      labelNames: ['agent', 'outcome'],
      registers,
    });
    this.calls = new Counter({ name: 'sas_agent_remote_calls_total', help: 'Calls that reached the remote service (first tries and retries), by agent', labelNames: ['agent'], registers });
    this.retries = new Counter({ name: 'sas_agent_retries_total', help: 'Remote calls that were retries of an earlier try of the same request, by agent', labelNames: ['agent'], registers });
    this.breakerState = new Gauge({ name: 'sas_agent_breaker_state', help: "Circuit breaker of each agent's remote: 0 closed, 1 half-open, 2 open", labelNames: ['agent'], registers });
  }

  requestHandled(agent: string, outcome: HandleOutcome): void {
    this.requests.inc({ agent, outcome: outcome.kind });
    const calls = 'calls' in outcome ? outcome.calls : 0;
    this.calls.inc({ agent }, calls);
    this.retries.inc({ agent }, Math.max(0, calls - 1));
  }

  /** Shows each agent's breaker now and follows its changes; returns the unsubscribe function. */
  watchBreakers(breakers: Pick<Breakers, 'state' | 'onStateChange'>, agents: readonly string[]): () => void {
    for (const agent of agents) this.breakerState.set({ agent }, BREAKER_STATE_VALUE[breakers.state(agent).state]);
    return breakers.onStateChange((agent, snapshot) => {
      if (agents.includes(agent)) this.breakerState.set({ agent }, BREAKER_STATE_VALUE[snapshot.state]);
    });
  }
}
