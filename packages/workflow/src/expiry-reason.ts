import type { StepRecord } from '@sas/contracts';

/** What the live agents serve, by agent: the operations any live instance registered (see `AgentRegistration`). */
export type LiveAgents = Readonly<Record<string, readonly string[]>>;

/**
 * Why a step in flight is recovered by the supervisor: its complete-by passed, and, when the
 * supervisor could tell, that no live agent serves it. A step whose agent does not exist (a typo,
 * an agent not started) then says so in its reason, in the alert at the threshold and in `sas
 * status`, instead of a bare timeout three complete-bys later.
 */
export function expiryReason(step: Pick<StepRecord, 'agent' | 'operation'>, live: LiveAgents | undefined): string {
  const base = 'complete-by passed';
  if (live === undefined || step.agent === '') return base;
  const operations = live[step.agent];
  if (operations === undefined) return `${base}; no live instance of agent '${step.agent}' is registered: start it, or fix the agent's name in the workflow`;
  if (!operations.includes(step.operation)) {
    return `${base}; agent '${step.agent}' (live) does not serve '${step.operation}' (it serves ${operations.join(', ') || 'nothing'}): fix the name in the workflow or the agent`;
  }
  return base;
}

/** {@link LiveAgents} from the live registrations (several instances of an agent: the union of what they serve). */
export function liveAgentsOf(registrations: readonly { agent: string; operations: readonly string[] }[]): LiveAgents {
  const live: Record<string, string[]> = {};
  for (const r of registrations) live[r.agent] = [...new Set([...(live[r.agent] ?? []), ...r.operations])];
  return live;
}
