import type { AgentReply, AgentRequest, JsonObject } from '@sas/contracts';

/**
 * What an agent says about a request, without the fence fields that tie it to the request.
 * Tests write only this part; {@link answer} copies the fence from the request, so a reply is
 * current unless a test deliberately edits the request it answers.
 */
export type ReplyBody =
  | { outcome: 'ok'; result: JsonObject; resultRefused?: string }
  | { outcome: 'error'; errorKind: 'permanent' | 'transient'; message: string }
  | { outcome: 'parked'; retryAfterMs: number; reason: string };

/**
 * The reply an agent instance (`<agent>-1`) sends for `request` at time `at`: the request's
 * fence (process, step, index, mode, attempt, agent) plus `body`.
 */
export function answer(request: AgentRequest, body: ReplyBody, at: number): AgentReply {
  const { processId, step, stepIndex, mode, attempt, agent } = request;
  const fence = { schemaVersion: 1 as const, processId, step, stepIndex, mode, attempt, agent };
  return { ...fence, agentInstance: `${agent}-1`, at, ...body };
}

/** A successful reply carrying `result` (empty by default). */
export const ok = (result: JsonObject = {}): ReplyBody => ({ outcome: 'ok', result });

/** A success whose result the agent could not carry, for `reason` (the result is then `{}`). */
export const okResultRefused = (reason: string): ReplyBody => ({ outcome: 'ok', result: {}, resultRefused: reason });

/** A permanent refusal: the step (or its undo) must not be retried. */
export const refused = (message: string): ReplyBody => ({
  outcome: 'error',
  errorKind: 'permanent',
  message,
});

/** The agent gave up on its own retries: counts as one failure, like an expiry. */
export const transient: ReplyBody = { outcome: 'error', errorKind: 'transient', message: 'gateway timeout' };
