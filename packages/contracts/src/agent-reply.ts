import { z } from 'zod';
import { EpochMs, JsonObject } from './common';
import { ProcessMode } from './process-state';
import { Traceparent } from './traceparent';

const ReplyBase = z.object({
  schemaVersion: z.literal(1),
  processId: z.string().min(1),
  step: z.string().min(1),
  stepIndex: z.number().int().nonnegative(),
  mode: ProcessMode,
  attempt: z.number().int().positive(),
  agent: z.string().min(1),
  /** Which agent instance answered, for the process history. */
  agentInstance: z.string().min(1),
  at: EpochMs,
  /** The agent's attempt span: the scheduler's span applying this reply links to it. */
  traceparent: Traceparent,
});

/**
 * The remote call succeeded (or had already succeeded under the same idempotency key).
 * `resultRefused` says why the agent could not carry the result (see `stepResultProblem`); then
 * `result` is `{}`, the effect still happened, and the workflow undoes it.
 */
export const AgentReplyOk = ReplyBase.extend({ outcome: z.literal('ok'), result: JsonObject, resultRefused: z.string().optional() });

/** The remote call failed. `permanent` never succeeds on retry; `transient` ran out of retries. */
export const AgentReplyError = ReplyBase.extend({
  outcome: z.literal('error'),
  errorKind: z.enum(['permanent', 'transient']),
  message: z.string(),
});

/**
 * The remote service's circuit is open: the step is parked, not failed. The scheduler holds it
 * until `retryAfterMs` has passed without counting a failure.
 */
export const AgentReplyParked = ReplyBase.extend({
  outcome: z.literal('parked'),
  retryAfterMs: z.number().int().nonnegative(),
  reason: z.string(),
});

/** What an agent sends to `scheduler.replies`. */
export const AgentReply = z.discriminatedUnion('outcome', [AgentReplyOk, AgentReplyError, AgentReplyParked]);
export type AgentReply = z.infer<typeof AgentReply>;
export type AgentReplyOk = z.infer<typeof AgentReplyOk>;
export type AgentReplyError = z.infer<typeof AgentReplyError>;
export type AgentReplyParked = z.infer<typeof AgentReplyParked>;
