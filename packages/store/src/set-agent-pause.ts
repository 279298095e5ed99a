import { changeAgentPause, type AgentPauseChange, type AgentPauseRequest } from '@sas/contracts';
import type { AgentPauseStore } from './agent-pause-store';

/** Read-change-write rounds before giving up when other operators keep changing the same agent. */
const MAX_ROUNDS = 5;

/**
 * Pauses or resumes one agent: reads its document, applies {@link changeAgentPause}, and writes it
 * conditionally on the revision read, again from the top when another operator wrote first. A
 * request that changes nothing (already paused) writes nothing.
 */
export async function setAgentPause(store: AgentPauseStore, request: AgentPauseRequest): Promise<AgentPauseChange> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const current = await store.get(request.agent);
    const change = changeAgentPause(current, request);
    if (!change.changed) return change;
    const written = await store.write(change.next, current ? current.revision : null);
    if (written.ok) return change;
  }
  throw new Error(`agent ${request.agent}'s pause kept changing under ${MAX_ROUNDS} concurrent writes; look at it (sas agents) and try again`);
}
