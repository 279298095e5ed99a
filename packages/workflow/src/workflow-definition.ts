import { z } from 'zod';
import { RetryPolicy } from '@sas/contracts';
import { strictObject } from './strict-object';
import { MAX_INPUT_SCHEMA_BYTES } from './input-schema-limit';

/**
 * A step's retry policy as a workflow writes it: the message schema's fields, but unknown keys are
 * refused here (a typo in a file), while `AgentRequest` keeps accepting fields newer schedulers add.
 */
const StepRetryPolicy = strictObject(RetryPolicy.shape);

/**
 * One step of a workflow: which agent runs which operation, how long it may take, and how to undo
 * it. Every object of a definition refuses unknown keys (a typo would otherwise drop a setting).
 */
export const StepDefinition = strictObject({
  /** Unique within the workflow; part of the step's idempotency key, so never rename a live step. */
  name: z.string().regex(/^[a-z][a-z0-9-]*$/, 'step names are lower-case words joined by -'),
  /** Agent (remote service) that runs it. */
  agent: z.string().regex(/^[a-z][a-z0-9-]*$/, 'agent names are lower-case words joined by -'),
  operation: z.string().min(1),
  /** Operation that undoes it; null when nothing needs undoing. */
  compensation: z.string().min(1).nullable(),
  /** How long one attempt may take before the supervisor recovers it. */
  completeByMs: z.number().int().positive(),
  /** The agent's retries of transient faults inside one attempt. */
  retry: StepRetryPolicy,
});
export type StepDefinition = z.infer<typeof StepDefinition>;

/** What happens when a step has been recovered `failureThreshold` times in a row. */
export const ThresholdPolicy = z.discriminatedUnion('policy', [
  /** Mark the process Error and alert an operator, who can resubmit or cancel it. */
  strictObject({ policy: z.literal('error') }),
  /** Wait `waitMs` (the fault may clear), then retry with a fresh count; after `maxWaits` waits, Error. */
  strictObject({
    policy: z.literal('wait'),
    waitMs: z.number().int().positive(),
    maxWaits: z.number().int().positive(),
  }),
  /** Undo the completed steps in reverse order; the process ends Compensated. */
  strictObject({ policy: z.literal('compensate') }),
]);
export type ThresholdPolicy = z.infer<typeof ThresholdPolicy>;

/** How long a step may stay parked (its remote's circuit open) before it counts as failed. */
export const ParkingPolicy = strictObject({
  /** Total time one step may spend parked in one direction; then `onThreshold` applies, with an alert. */
  maxParkedMs: z.number().int().positive(),
});
export type ParkingPolicy = z.infer<typeof ParkingPolicy>;

/** @see ParkingPolicy; 30 minutes: long enough to ride out a deploy, short enough that nobody waits days. */
export const DEFAULT_MAX_PARKED_MS = 30 * 60 * 1000;

/** A JSON Schema object, bounded in size (it is compiled to code at load); compiled by the registry. */
const InputSchema = z.record(z.string(), z.unknown()).superRefine((schema, ctx) => {
  const bytes = Buffer.byteLength(JSON.stringify(schema), 'utf8');
  if (bytes > MAX_INPUT_SCHEMA_BYTES) {
    ctx.addIssue({ code: 'custom', message: `the schema is ${bytes} bytes; at most ${MAX_INPUT_SCHEMA_BYTES} are allowed` });
  }
});

/** A workflow is data: its steps in order and its failure policies. */
export const WorkflowDefinition = strictObject({
  name: z.string().regex(/^[a-z][a-z0-9-]*$/, 'workflow names are lower-case words joined by -'),
  /** A process keeps the version it started with; publish changes as a new version. */
  version: z.number().int().positive(),
  steps: z.array(StepDefinition).min(1),
  /** Recoveries of one step (complete-by passed, or retries exhausted) before `onThreshold` applies. */
  failureThreshold: z.number().int().positive(),
  onThreshold: ThresholdPolicy,
  /** A permanent fault (the remote said no) compensates the completed steps, or stops in Error. */
  onPermanentFailure: z.enum(['compensate', 'error']),
  /** How long a finished process stays queryable before the TTL index removes it. */
  retentionMs: z.number().int().positive(),
  /** Bound on parking; {@link DEFAULT_MAX_PARKED_MS} when absent (definitions written before it). */
  parking: ParkingPolicy.optional(),
  /**
   * JSON Schema (draft-07) of the order payload, checked at submission: a payload that does not fit
   * is Rejected naming each bad field, and nothing is created. Absent: every payload is accepted.
   * A change of schema is a change of the workflow: publish it as a new version.
   */
  inputSchema: InputSchema.optional(),
}).superRefine((w, ctx) => {
  const seen = new Set<string>();
  for (const s of w.steps) {
    if (seen.has(s.name)) ctx.addIssue({ code: 'custom', message: `step name '${s.name}' is used twice` });
    seen.add(s.name);
  }
});
export type WorkflowDefinition = z.infer<typeof WorkflowDefinition>;

/** The workflow's parking bound, with the default applied. */
export function maxParkedMs(workflow: WorkflowDefinition): number {
  return workflow.parking?.maxParkedMs ?? DEFAULT_MAX_PARKED_MS;
}
