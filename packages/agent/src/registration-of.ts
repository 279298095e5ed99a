import type { AgentRegistration } from '@sas/contracts';
import type { AgentDefinition } from './agent-definition';

/** Who registers, and for how long a registration stands without a heartbeat. */
export interface RegistrationContext {
  instanceId: string;
  version: string | null;
  startedAt: number;
  now: number;
  /** Past `now + ttlMs` without a newer beat the instance counts as gone. */
  ttlMs: number;
}

/**
 * The registration of one agent in this process: its operations (sorted), those it declares as
 * compensations, and whether a catch-all handler takes any other name. Pure.
 *
 * @throws Error when `compensations` names an operation the agent has no handler for: the
 *   declaration is there to catch typos, so it must not carry one itself.
 */
export function registrationOf(agent: AgentDefinition, context: RegistrationContext): AgentRegistration {
  const operations = Object.keys(agent.operations).sort();
  const compensations = checkedCompensations(agent);
  return {
    _id: `${agent.name}/${context.instanceId}`,
    agent: agent.name,
    instanceId: context.instanceId,
    operations,
    compensations,
    servesOtherOperations: agent.otherOperations !== undefined,
    version: context.version,
    startedAt: new Date(context.startedAt),
    lastSeen: new Date(context.now),
    deleteTime: new Date(context.now + context.ttlMs),
  };
}

/**
 * The agent's declared compensations, sorted, once each.
 *
 * @throws Error naming the agent when one has no handler (and no catch-all takes it).
 */
export function checkedCompensations(agent: AgentDefinition): string[] {
  const operations = Object.keys(agent.operations).sort();
  const compensations = [...new Set(agent.compensations ?? [])].sort();
  const unknown = agent.otherOperations ? [] : compensations.filter((c) => !operations.includes(c));
  if (unknown.length > 0) {
    throw new Error(`agent '${agent.name}' declares compensations it has no handler for: ${unknown.join(', ')} (its operations: ${operations.join(', ')})`);
  }
  return compensations;
}
