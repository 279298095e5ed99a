import { z } from 'zod';

/** How many pause and resume actions an agent's pause document keeps, newest last. */
export const AGENT_PAUSE_HISTORY_LIMIT = 20;

/** An agent (remote service) name as queues and workflows spell it. */
export const AgentName = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,100}$/, 'an agent name is 1 to 100 letters, digits, _ or - (as in agent.<name>.requests)');

/** One pause or resume of an agent, with who did it and why. */
export const AgentPauseAction = z.object({
  action: z.enum(['pause', 'resume']),
  by: z.string().min(1),
  reason: z.string().nullable(),
  at: z.date(),
});
export type AgentPauseAction = z.infer<typeof AgentPauseAction>;

/**
 * Whether an operator paused one agent's work (collection `agent_pauses`, one document per agent
 * ever paused, `_id` the agent name). While `paused`, schedulers hold new dispatches to that agent,
 * forward steps and compensations alike, instead of sending them. A resumed agent keeps its
 * document (paused false) so its history stays readable and schedulers find its held work.
 */
export const AgentPauseDocument = z.object({
  _id: AgentName,
  paused: z.boolean(),
  /** Who made the latest change, and why. */
  by: z.string().min(1),
  reason: z.string().nullable(),
  /** When the current state (paused or resumed) began. */
  since: z.date(),
  /** Optimistic-concurrency version: every write is conditional on it. */
  revision: z.number().int().nonnegative(),
  /** The latest actions, newest last (at most {@link AGENT_PAUSE_HISTORY_LIMIT}). */
  history: z.array(AgentPauseAction),
});
export type AgentPauseDocument = z.infer<typeof AgentPauseDocument>;

/** An operator's request to pause or resume one agent. */
export interface AgentPauseRequest {
  agent: string;
  action: AgentPauseAction['action'];
  by: string;
  reason?: string | undefined;
  /** Milliseconds since the epoch. */
  now: number;
}

/** What a pause or resume does to the agent's document; `changed` false when it was already so. */
export interface AgentPauseChange {
  changed: boolean;
  next: AgentPauseDocument;
  message: string;
}

/**
 * Applies a pause or resume to the agent's current document (null when it was never paused).
 * Pausing a paused agent (or resuming a running one) changes nothing and says since when and by
 * whom it is so, so a repeated command is harmless and answers what the first one did.
 */
export function changeAgentPause(current: AgentPauseDocument | null, request: AgentPauseRequest): AgentPauseChange {
  const paused = request.action === 'pause';
  const wasPaused = current?.paused ?? false;
  if (current && wasPaused === paused) {
    const state = paused ? 'paused' : 'running';
    return { changed: false, next: current, message: `agent ${request.agent} is already ${state} (since ${current.since.toISOString()}, by ${current.by})` };
  }
  if (!current && !paused) {
    const next = { _id: request.agent, paused: false, by: request.by, reason: request.reason ?? null, since: new Date(request.now), revision: 0, history: [] };
    return { changed: false, next, message: `agent ${request.agent} is not paused` };
  }
  const at = new Date(request.now);
  const reason = request.reason ?? null;
  const history = [...(current?.history ?? []), { action: request.action, by: request.by, reason, at }].slice(-AGENT_PAUSE_HISTORY_LIMIT);
  const next: AgentPauseDocument = { _id: request.agent, paused, by: request.by, reason, since: at, revision: (current?.revision ?? -1) + 1, history };
  const because = reason ? `: ${reason}` : '';
  const message = paused
    ? `agent ${request.agent} paused by ${request.by}${because}; new dispatches to it are held`
    : `agent ${request.agent} resumed by ${request.by}${because}; its held work is released at a bounded rate`;
  return { changed: true, next, message };
}
