import { z } from 'zod';
import { ProcessState } from './process-state';

/** What a bulk operation does to each process it selects: the same commands as one operator command. */
export const BulkCommand = z.enum(['resubmit', 'cancel']);
export type BulkCommand = z.infer<typeof BulkCommand>;

const INSTANT_HINT = 'give an ISO 8601 instant such as 2025-01-31T12:00:00Z, or epoch milliseconds';

/** An instant from JSON (ISO text or epoch ms) or from the store (a Date). */
const Instant = (name: string) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? (/^\d+$/.test(v) ? new Date(Number(v)) : new Date(v)) : typeof v === 'number' ? new Date(v) : v),
    z.date({ errorMap: () => ({ message: `${name} is not a date; ${INSTANT_HINT}` }) }),
  );

const StateList = z.preprocess(
  (v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()) : v),
  z
    .array(z.enum(ProcessState.options, { errorMap: () => ({ message: `state must be one of ${ProcessState.options.join(', ')}` }) }), {
      invalid_type_error: 'state must be a state name, a comma-separated list or an array of them',
      required_error: 'state is required: name the states to act on, such as Error',
    })
    .min(1, 'state must name at least one state'),
);

const Text = (name: string, hint: string) =>
  z.string({ invalid_type_error: `${name} must be text; ${hint}` }).trim().min(1, `${name} must not be empty; ${hint} or leave it out`).max(200, `${name} must be at most 200 characters`);

/**
 * Which processes a bulk operation selects: every given criterion must hold. `state` is required
 * (a filter without it would select every process in the store). Unknown fields are refused, so a
 * typo cannot widen the selection.
 */
export const BulkFilter = z
  .object({
    /** One state or several (a list, or comma-separated text). */
    state: StateList,
    workflow: Text('workflow', 'give a workflow name such as order-fulfilment').optional(),
    /** The step the process stopped at (its current step): for an Error process, the step that failed. */
    failedStep: Text('failedStep', 'give a step name such as payment').optional(),
    /** Which timestamp `since` and `until` bound. @default 'updatedAt' */
    timeField: z.enum(['updatedAt', 'createdAt'], { errorMap: () => ({ message: 'timeField must be updatedAt or createdAt' }) }).default('updatedAt'),
    /** Inclusive lower bound on `timeField`. */
    since: Instant('since').optional(),
    /** Exclusive upper bound on `timeField`. */
    until: Instant('until').optional(),
    /** Case-insensitive text the process's reason or one of its steps' errors contains. */
    text: Text('text', 'give a word of the failure reason such as declined').optional(),
  }, { invalid_type_error: 'filter must be an object such as {"state":"Error","workflow":"order-fulfilment"}' })
  .strict('unknown filter field; use state, workflow, failedStep, timeField, since, until and text')
  .superRefine((f, ctx) => {
    if (f.since && f.until && f.since.getTime() >= f.until.getTime()) {
      ctx.addIssue({ code: 'custom', path: ['until'], message: `until (${f.until.toISOString()}) must be after since (${f.since.toISOString()})` });
    }
  });
export type BulkFilter = z.infer<typeof BulkFilter>;
/** A filter as a client writes it (before defaults and date parsing). */
export type BulkFilterInput = z.input<typeof BulkFilter>;

/**
 * A request to start a bulk operation (`POST /api/bulk`, `sas bulk`). `id`, when given, makes the
 * request idempotent: sending it again returns the operation it created, not a second one.
 */
export const BulkOperationRequest = z
  .object({
    id: z
      .string({ invalid_type_error: 'id must be text' })
      .regex(/^[A-Za-z0-9._:-]{1,100}$/, 'id must be 1 to 100 letters, digits, . _ : -')
      .optional(),
    command: BulkCommand,
    filter: BulkFilter,
    reason: z.string({ required_error: 'reason is required: say why, it goes into every process history', invalid_type_error: 'reason must be text' }).trim().min(1, 'reason must not be empty; say why, it goes into every process history').max(500, 'reason must be at most 500 characters'),
    /** Count what the filter selects now, and start nothing. */
    dryRun: z.boolean({ invalid_type_error: 'dryRun must be true or false' }).optional(),
  }, { invalid_type_error: 'the body must be a JSON object such as {"command":"resubmit","filter":{"state":"Error"},"reason":"remote fixed"}' })
  .strict('unknown field; use id, command, filter, reason and dryRun')
  .superRefine((r, ctx) => {
    // The state machine would refuse every other process: say so now rather than run an operation of refusals.
    const allowed: readonly ProcessState[] = r.command === 'resubmit' ? ['Error'] : ['Pending', 'Processing', 'Error'];
    const wrong = r.filter.state.filter((s) => !allowed.includes(s));
    if (wrong.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['filter', 'state'], message: `${r.command} applies only to ${allowed.join(', ')} processes; remove ${wrong.join(', ')} from state` });
    }
  });
export type BulkOperationRequest = z.infer<typeof BulkOperationRequest>;

/** How far an operation got. `matched` = `done` + `refused` + `failed`. */
export const BulkProgress = z.object({
  /** Processes read from the store (in `_id` order) so far, matching or not. */
  examined: z.number().int().nonnegative(),
  /** Processes that matched the filter when the operation reached them. */
  matched: z.number().int().nonnegative(),
  /** The command was applied (by this operation: a repeat after a crash counts once). */
  done: z.number().int().nonnegative(),
  /** The process refused the command (it changed state since it matched). */
  refused: z.number().int().nonnegative(),
  /** The command could not be applied (the process kept changing, the store failed). */
  failed: z.number().int().nonnegative(),
});
export type BulkProgress = z.infer<typeof BulkProgress>;

/** A process the operation could not act on, and why. */
export const BulkProblem = z.object({
  processId: z.string(),
  outcome: z.enum(['refused', 'failed']),
  message: z.string(),
});
export type BulkProblem = z.infer<typeof BulkProblem>;

/**
 * The page a runner is working on, written before it acts on any of the page's processes: a
 * runner that resumes the operation finishes exactly these processes, including those that no
 * longer match the filter because the runner before it acted on them (so they are counted).
 */
export const BulkPageInFlight = z.object({
  /** The page's matching processes, in `_id` order. */
  processIds: z.array(z.string()),
  examined: z.number().int().nonnegative(),
  /** The cursor once the page is committed. */
  lastId: z.string().nullable(),
  /** Whether the page is the operation's last. */
  end: z.boolean(),
});
export type BulkPageInFlight = z.infer<typeof BulkPageInFlight>;

export const BulkOperationState = z.enum(['Running', 'Finished']);
export type BulkOperationState = z.infer<typeof BulkOperationState>;

/** One bulk operation in the `bulk_operations` collection. */
export const BulkOperationDocument = z.object({
  _id: z.string(),
  schemaVersion: z.literal(1),
  command: BulkCommand,
  filter: BulkFilter,
  reason: z.string(),
  /** Who asked; each process's history says `<by> (bulk <id>)`. */
  by: z.string(),
  state: BulkOperationState,
  /** Only processes created up to this instant are selected (see decision 50). */
  createdAt: z.date(),
  updatedAt: z.date(),
  finishedAt: z.date().nullable(),
  /** Processes matching when the operation was created; progress is measured against it. */
  expected: z.number().int().nonnegative(),
  /** `_id` of the last process examined; the next page starts after it. Null before the first page. */
  cursor: z.string().nullable(),
  /** The page being worked on; null between pages. */
  page: BulkPageInFlight.nullable(),
  /** Incremented by every change; a runner changes the operation only on the revision it read. */
  revision: z.number().int().nonnegative(),
  progress: BulkProgress,
  /** The latest processes refused or failed (a few kept). */
  problems: z.array(BulkProblem),
  /** Scheduler instance that committed the latest page. */
  runner: z.string().nullable(),
  /** Set when finished; the TTL index removes the operation after it. */
  deleteTime: z.date().nullable(),
});
export type BulkOperationDocument = z.infer<typeof BulkOperationDocument>;
