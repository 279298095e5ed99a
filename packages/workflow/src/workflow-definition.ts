import { z } from 'zod';
import { RetryPolicy } from '@sas/contracts';
import { strictObject } from './strict-object';
import { MAX_INPUT_SCHEMA_BYTES } from './input-schema-limit';
import { celSyntaxProblem, conditionProblem, MAX_CONDITION_CHARS } from './condition';

/**
 * A step's retry policy as a workflow writes it: the message schema's fields, but unknown keys are
 * refused here (a typo in a file), while `AgentRequest` keeps accepting fields newer schedulers add.
 */
const StepRetryPolicy = strictObject(RetryPolicy.shape);

const stepName = z.string().regex(/^[a-z][a-z0-9-]*$/, 'step names are lower-case words joined by -');

/**
 * When an entry runs: a CEL expression over `{ payload, results }` that must give a boolean,
 * checked for syntax when the workflow is loaded (see {@link conditionProblem}).
 */
export const Condition = z
  .string()
  .min(1, 'a condition is a CEL expression; leave the key out to always run the entry')
  .max(MAX_CONDITION_CHARS, `a condition is at most ${MAX_CONDITION_CHARS} characters`)
  .superRefine((expression, ctx) => {
    // Too long is reported above; such a text is not parsed at all (the bound is also the parser's).
    if (expression.length > MAX_CONDITION_CHARS) return;
    const problem = conditionProblem(expression);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });

/** The fields of a task: which agent runs which operation, how long it may take, how to undo it. */
const taskShape = {
  /** Unique within the workflow, group members included; part of the step's idempotency key, so never rename a live step. */
  name: stepName,
  /** Agent (remote service) that runs it. */
  agent: z.string().regex(/^[a-z][a-z0-9-]*$/, 'agent names are lower-case words joined by -'),
  operation: z.string().min(1),
  /** Operation that undoes it; null when nothing needs undoing. */
  compensation: z.string().min(1).nullable(),
  /** How long one attempt may take before the supervisor recovers it. */
  completeByMs: z.number().int().positive(),
  /** The agent's retries of transient faults inside one attempt. */
  retry: StepRetryPolicy,
};

/**
 * A task step: which agent runs which operation, how long it may take, and how to undo it, and
 * optionally a `condition` deciding whether it runs. Every object of a definition refuses unknown
 * keys (a typo would otherwise drop a setting).
 */
export const StepDefinition = strictObject({
  ...taskShape,
  /** Runs only when this CEL expression is true; skipped (never dispatched, never undone) otherwise. */
  condition: Condition.optional(),
});
export type StepDefinition = z.infer<typeof StepDefinition>;

/** A task inside a parallel group: no condition of its own (the group has one). */
export const GroupMember = strictObject(taskShape);
export type GroupMember = z.infer<typeof GroupMember>;

/** Tasks run at the same time; the group completes when every member has. */
export const ParallelGroup = strictObject({
  /** Names the group in the history and in its members' records; unique like a step name. */
  name: stepName,
  parallel: z.array(GroupMember).min(2, 'a parallel group has at least 2 members; write a single task as a step'),
  /** Runs the whole group only when true; every member is skipped otherwise. */
  condition: Condition.optional(),
});
export type ParallelGroup = z.infer<typeof ParallelGroup>;

/** A wait of a fixed time from when the step is reached. */
const WaitForMs = strictObject({ ms: z.number().int().positive() });
/** A wait until an instant: a CEL expression giving an RFC 3339 string or epoch milliseconds. */
const WaitUntil = strictObject({
  until: z
    .string()
    .min(1)
    .max(MAX_CONDITION_CHARS, `an until expression is at most ${MAX_CONDITION_CHARS} characters`)
    .superRefine((expression, ctx) => {
      if (expression.length > MAX_CONDITION_CHARS) return;
      const problem = celSyntaxProblem(expression);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
    }),
});

/** A durable timer: the process sits Pending until the instant, with nothing to undo. */
export const WaitStep = strictObject({
  name: stepName,
  wait: byKey<z.infer<typeof WaitForMs> | z.infer<typeof WaitUntil>, z.input<typeof WaitForMs> | z.input<typeof WaitUntil>>(
    (value) => (isObject(value) && 'until' in value ? WaitUntil : WaitForMs),
  ),
  condition: Condition.optional(),
});
export type WaitStep = z.infer<typeof WaitStep>;

/** Waits for a named signal sent from outside; its data becomes the step's result. Nothing to undo. */
export const SignalStep = strictObject({
  name: stepName,
  signal: strictObject({
    /** The signal's name, as the sender gives it. */
    name: z.string().regex(/^[a-z][a-z0-9-]*$/, 'signal names are lower-case words joined by -'),
    /** How long the step waits once reached. */
    timeoutMs: z.number().int().positive(),
    /** Then: undo the earlier steps, stop in Error for an operator, or go on with a null result. */
    onTimeout: z.enum(['compensate', 'error', 'continue']),
    /**
     * When the signal says no: a CEL condition over `{ data, payload, results }` (`data` is the
     * signal's data), e.g. `data.approved == false`. True: the signal rejects, the step fails, and
     * `onReject` applies; the history and the final status name the signal. Absent: every signal approves.
     */
    rejectWhen: Condition.optional(),
    /** A rejecting signal undoes the earlier steps (the order ends Compensated) or stops in Error for an operator. @default 'compensate' */
    onReject: z.enum(['compensate', 'error']).optional(),
  }),
  condition: Condition.optional(),
});
export type SignalStep = z.infer<typeof SignalStep>;

/** One entry of a workflow's `steps`, told apart by its key: `parallel`, `wait`, `signal`, or a task. */
export type WorkflowEntry = StepDefinition | ParallelGroup | WaitStep | SignalStep;
/** An entry as written, before defaults are filled in. */
export type WorkflowEntryInput =
  | z.input<typeof StepDefinition>
  | z.input<typeof ParallelGroup>
  | z.input<typeof WaitStep>
  | z.input<typeof SignalStep>;

/**
 * The entry schema, chosen by key rather than tried one after another, so a mistake is explained
 * against the kind the writer meant (`steps[1].parallel[0].agent: …`), not as "no kind matched".
 */
export const WorkflowEntry = byKey<WorkflowEntry, WorkflowEntryInput>((value) => {
  if (isObject(value)) {
    if ('parallel' in value) return ParallelGroup;
    if ('wait' in value) return WaitStep;
    if ('signal' in value) return SignalStep;
  }
  return StepDefinition;
});

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A schema that parses with the one `pick` chooses for the value, its issues at this place's path. */
function byKey<Out, In>(pick: (value: unknown) => z.ZodTypeAny): z.ZodType<Out, z.ZodTypeDef, In> {
  return z.unknown().transform((value, ctx) => {
    const parsed = pick(value).safeParse(value);
    if (parsed.success) return parsed.data as Out;
    for (const issue of parsed.error.issues) ctx.addIssue(issue as z.IssueData);
    return z.NEVER;
  }) as unknown as z.ZodType<Out, z.ZodTypeDef, In>;
}

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
  /** Its entries in order: tasks, parallel groups, waits and signal steps (see {@link WorkflowEntry}). */
  steps: z.array(WorkflowEntry).min(1),
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
  // Step names key idempotency and results: unique across the whole workflow, group members included.
  const seen = new Set<string>();
  for (const name of w.steps.flatMap((e) => ('parallel' in e ? [e.name, ...e.parallel.map((m) => m.name)] : [e.name]))) {
    // An entry refused above has no value here (its issues are reported already).
    if (typeof name !== 'string') continue;
    if (seen.has(name)) ctx.addIssue({ code: 'custom', message: `step name '${name}' is used twice` });
    seen.add(name);
  }
});
export type WorkflowDefinition = z.infer<typeof WorkflowDefinition>;

/** The workflow's parking bound, with the default applied. */
export function maxParkedMs(workflow: WorkflowDefinition): number {
  return workflow.parking?.maxParkedMs ?? DEFAULT_MAX_PARKED_MS;
}
