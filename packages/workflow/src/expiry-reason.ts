import type { StepRecord } from '@sas/contracts';

/** What the live instances of one agent serve together (see `AgentRegistration`). */
export interface LiveAgent {
  /** Every operation some live instance has a handler for. */
  readonly operations: readonly string[];
  /** Some live instance takes any operation name (a catch-all handler, an HTTP mapping's `*`). */
  readonly servesOtherOperations: boolean;
}

/** What the live agents serve, by agent name. */
export type LiveAgents = Readonly<Record<string, LiveAgent>>;

/**
 * Why a step in flight is recovered by the supervisor: its complete-by passed, and, when the
 * supervisor could tell, that no live agent serves it. A step whose agent does not exist (a typo,
 * an agent not started) then says so in its reason, in the alert at the threshold and in `sas
 * status`, instead of a bare timeout three complete-bys later. The rule is `unservedOperations`'s:
 * a catch-all instance serves every name.
 */
export function expiryReason(step: Pick<StepRecord, 'agent' | 'operation'>, live: LiveAgents | undefined): string {
  const base = 'complete-by passed';
  if (live === undefined || step.agent === '') return base;
  const agent = live[step.agent];
  if (agent === undefined) return `${base}; no live instance of agent '${step.agent}' is registered: start it, or fix the agent's name in the workflow`;
  if (!agent.servesOtherOperations && !agent.operations.includes(step.operation)) {
    return `${base}; agent '${step.agent}' (live) does not serve '${step.operation}' (it serves ${agent.operations.join(', ') || 'nothing'}): fix the name in the workflow or the agent`;
  }
  return base;
}

/** {@link LiveAgents} from the live registrations (several instances of an agent: what any of them serves). */
export function liveAgentsOf(registrations: readonly { agent: string; operations: readonly string[]; servesOtherOperations: boolean }[]): LiveAgents {
  const live: Record<string, LiveAgent> = {};
  for (const r of registrations) {
    const seen = live[r.agent];
    live[r.agent] = {
      operations: [...new Set([...(seen?.operations ?? []), ...r.operations])],
      servesOtherOperations: (seen?.servesOtherOperations ?? false) || r.servesOtherOperations,
    };
  }
  return live;
}
