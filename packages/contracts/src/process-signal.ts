import { createHash } from 'node:crypto';
import { z } from 'zod';
import { JsonObject, OrderId, ReplyTo } from './common';
import { stepResultProblem } from './step-result-limits';
import { canonicalJson } from './submission-fingerprint';

/** A signal's name, as a workflow's signal step names it: lower-case words joined by `-`. */
export const SignalName = z
  .string()
  .max(200, 'name must be at most 200 characters')
  .regex(/^[a-z][a-z0-9-]*$/, 'name must be lower-case words joined by - (as the signal step names it), e.g. approved');

/** A signal's id: a repeat of an id already received is answered as the first time, not applied again. */
export const SignalId = z.string().min(1, 'signalId must not be empty').max(200, 'signalId must be at most 200 characters');

/**
 * What an application (or an operator) sends to `process.signals`: a named event from outside for
 * one process, such as a customer's approval; a signal step of the process waits for it and its
 * `data` becomes the step's result.
 */
export const ProcessSignal = z
  .object({
    schemaVersion: z.literal(1),
    /** The process, by its id. Exactly one of `processId` and `orderId`. */
    processId: z.string().min(1).max(200).optional(),
    /** The process, by the orderId it was submitted under. Exactly one of `processId` and `orderId`. */
    orderId: OrderId.optional(),
    name: SignalName,
    /** Becomes the signal step's result; as small as a step result must be. */
    data: JsonObject.nullable().default(null),
    /**
     * Identifies the signal: a repeat (a retried send, a redelivery) is answered as the first one and
     * counted once. The scheduler uses the message's job id when absent.
     */
    signalId: SignalId.optional(),
    /** Who sent it, for the process history. */
    by: z.string().min(1).max(200).default('application'),
    /** Queue that receives the answer. */
    replyTo: ReplyTo.optional(),
  })
  .superRefine((signal, ctx) => {
    if ((signal.processId === undefined) === (signal.orderId === undefined)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['processId'], message: 'name the process by exactly one of processId and orderId' });
    }
    const problem = signal.data === null ? null : stepResultProblem(signal.data);
    if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['data'], message: `${problem.replace('the result', 'the data')}; send a reference (an id, a URL) instead` });
  });
export type ProcessSignal = z.infer<typeof ProcessSignal>;
/** A signal as its sender writes it (defaults not yet applied). */
export type ProcessSignalInput = z.input<typeof ProcessSignal>;

/**
 * What became of a signal: `consumed` by the signal step waiting for it; `kept` until a step of its
 * name comes up; `repeat` of a signal id already received (answered as it was then); `refused` (the
 * process finished or is being undone, or it keeps no more signals); `not-found`; `invalid` message.
 */
export const SignalOutcome = z.enum(['consumed', 'kept', 'repeat', 'refused', 'not-found', 'invalid']);
export type SignalOutcome = z.infer<typeof SignalOutcome>;

/** Answer to a {@link ProcessSignal}. `ok` is true when the process has the signal (consumed, kept or a repeat). */
export const SignalResult = z.object({
  schemaVersion: z.literal(1),
  signalId: z.string(),
  /** The process the signal went to; null when none was found. */
  processId: z.string().nullable(),
  orderId: z.string().nullable(),
  name: z.string(),
  ok: z.boolean(),
  outcome: SignalOutcome,
  message: z.string(),
});
export type SignalResult = z.infer<typeof SignalResult>;

/**
 * The id a signal gets when its sender gives none: `<name>.<first 24 hex digits of the SHA-256 of
 * the target, name and canonical data>`. A retried call (same process, name and data) then counts
 * once; a second signal of the same name meant as a new one needs different data or its own id.
 */
export function defaultSignalId(target: { processId?: string | undefined; orderId?: string | undefined }, name: string, data: JsonObject | null): string {
  const canonical = canonicalJson({ processId: target.processId ?? null, orderId: target.orderId ?? null, name, data });
  return `${name}.${createHash('sha256').update(canonical).digest('hex').slice(0, 24)}`;
}
