import type { AgentRequest } from '@sas/contracts';
import type { RecordingOutbox } from '@sas/testkit';

/** The agent requests sent so far, in order: every agent queue is named `agent.<agent>.requests`. */
export function agentRequests(outbox: RecordingOutbox): AgentRequest[] {
  return outbox.sent.filter((s) => s.queue.startsWith('agent.')).map((s) => s.message as AgentRequest);
}

/** The last agent request sent; throws when none was, so a test fails at the cause. */
export function lastRequest(outbox: RecordingOutbox): AgentRequest {
  const request = agentRequests(outbox).at(-1);
  if (!request) throw new Error('no agent request was sent');
  return request;
}
