import type { AgentReply, AgentRequest } from '@sas/contracts';

/** The reply an agent sends when the step of `request` succeeded, fenced to that request. */
export function okReply(request: AgentRequest, at: number): AgentReply {
  const { processId, step, stepIndex, mode, attempt, agent } = request;
  const fence = { schemaVersion: 1 as const, processId, step, stepIndex, mode, attempt, agent };
  return { ...fence, agentInstance: `${agent}-1`, at, outcome: 'ok', result: {} };
}
