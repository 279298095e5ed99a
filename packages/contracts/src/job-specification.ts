import { z } from 'zod';
import { JsonObject, ReplyTo } from './common';
import { JobExecutionState } from './job-execution-status';
import { QUEUE_NAME_PATTERN } from './queue-names';
import { MAX_PAYLOAD_BYTES } from './submission-message';

/** An instant with an explicit offset and at most millisecond precision: `2025-03-01T09:30:00.250Z`. */
export const ISO_INSTANT_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/;

/** True when the runtime knows `zoneId` as an IANA time zone (Europe/Paris, UTC, ...). */
export function isZoneId(zoneId: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zoneId });
    return true;
  } catch {
    return false;
  }
}

const QueueName = z.string().regex(QUEUE_NAME_PATTERN, 'must be a queue name of letters, digits, . _ - (no :)');

const CalendarDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'holidays must be days written YYYY-MM-DD')
  .refine((d) => new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), (d) => ({ message: `'${d}' is not a calendar day` }));

/**
 * Days on which a job does not fire. A recurring job's fire time that falls on an excluded day
 * moves to its next occurrence on a day that is not excluded; a one-off job on an excluded day fails.
 * Days are read in the job's `zoneId`.
 */
export const JobCalendar = z
  .object({
    /** Skip Saturdays and Sundays. @default false */
    excludeWeekends: z.boolean().optional(),
    /** Days to skip, `YYYY-MM-DD` in the job's zone. */
    holidays: z.array(CalendarDay).max(1000).optional(),
  })
  .strict();
export type JobCalendar = z.infer<typeof JobCalendar>;

const contextField = (name: string): z.ZodString =>
  z
    .string({ required_error: `processingContext needs ${name} (processingEntity, clientRequestId and unitOfWorkId go together)` })
    .min(1, `processingContext.${name} must not be empty`);

/** IPF processing context: when a job has one, all three values are required. */
export const ProcessingContext = z
  .object({
    processingEntity: contextField('processingEntity'),
    clientRequestId: contextField('clientRequestId'),
    unitOfWorkId: contextField('unitOfWorkId'),
  })
  .strict();
export type ProcessingContext = z.infer<typeof ProcessingContext>;

/**
 * Submit a task at each fire time; its orderId is `<triggerIdentifier>@<fire time ISO>`. A second
 * firing of the same fire time (a redo after a crash) sends the same BullMQ job id and orderId:
 * BullMQ drops it while the first submission is still in its queue, and submission answers it as
 * it answered the first one (the same process, not `Duplicate`), so it never makes a second order.
 */
export const SubmitTriggerCommand = z
  .object({
    type: z.literal('submit'),
    workflow: z.string().min(1).max(100),
    payload: JsonObject.refine((p) => Buffer.byteLength(JSON.stringify(p)) <= MAX_PAYLOAD_BYTES, {
      message: `payload must be at most ${MAX_PAYLOAD_BYTES} bytes as JSON`,
    }),
    replyTo: ReplyTo.optional(),
  })
  .strict();

/** Put a message (any JSON object) on a queue at each fire time, wrapped in a `JobTriggerMessage`. */
export const MessageTriggerCommand = z.object({ type: z.literal('message'), queue: QueueName, message: JsonObject }).strict();

/**
 * What a job does with occurrences that are later than its misfire threshold (the scheduler was
 * down longer than that): `fireOnce` fires them as ONE late firing, for the latest of them;
 * `skip` fires none of them (a one-off job that misfires is FAILED). Occurrences late by less
 * than the threshold always fire, each one, in order.
 */
export const MisfirePolicy = z.enum(['fireOnce', 'skip']);
export type MisfirePolicy = z.infer<typeof MisfirePolicy>;

/** The longest misfire threshold a job may ask for: 7 days. */
const MAX_MISFIRE_THRESHOLD_MS = 7 * 24 * 60 * 60 * 1000;

/** What a job sends at each fire time. */
export const TriggerCommand = z.discriminatedUnion('type', [SubmitTriggerCommand, MessageTriggerCommand]);
export type TriggerCommand = z.infer<typeof TriggerCommand>;

/** What a job sends when a firing fails, wrapped in a `JobFailureMessage`. */
export const FailureCommand = z.object({ queue: QueueName, message: JsonObject }).strict();
export type FailureCommand = z.infer<typeof FailureCommand>;

/**
 * A job specification as a requestor writes it (IPF "Job Specification"): exactly one of
 * `schedulingSpecification` (cron, recurring) or `singleSchedule` (one instant, one-off).
 * `deleteTime` is not part of it: the scheduler sets it when the job is finished.
 * The cron expression itself is checked by `@sas/jobs`, which owns the cron parser.
 */
export const JobSpecification = z
  .object({
    jobSpecificationKey: z.string().min(1).max(200),
    jobRequestor: z.string().min(1).max(200),
    /** Cron expression of 5 fields, or 6 with seconds first, read in `zoneId`. */
    schedulingSpecification: z.string().min(1).max(200).optional(),
    /** The one instant a one-off job fires. */
    singleSchedule: z
      .string()
      .refine((s) => ISO_INSTANT_PATTERN.test(s) && Number.isFinite(Date.parse(s)), (s) => ({
        message: `singleSchedule must be an ISO-8601 instant with an offset and at most millisecond precision, e.g. 2025-03-01T09:30:00.250Z (got '${s}')`,
      }))
      .optional(),
    /** IANA zone the cron expression and calendar days are read in. @default 'UTC' */
    zoneId: z
      .string()
      .refine(isZoneId, (z) => ({ message: `zoneId '${z}' is not an IANA time zone id such as Europe/Paris; leave it out to use UTC` }))
      .optional(),
    calendar: JobCalendar.optional(),
    triggerCommand: TriggerCommand,
    /** Sent with every firing; the submitted orderId starts with it, so keep it short. */
    triggerIdentifier: z.string().min(1).max(150),
    failureCommand: FailureCommand,
    failureIdentifier: z.string().min(1).max(150),
    processingContext: ProcessingContext.optional(),
    // Misfire handling (added after the IPF fields, which are unchanged). Compatibility: both
    // optional, so every specification written before keeps its meaning (the scheduler's
    // JOBS_MISFIRE_THRESHOLD_MS and `fireOnce`).
    /** How late (ms) an occurrence may fire and still fire on its own. @default JOBS_MISFIRE_THRESHOLD_MS of the scheduler (60 s) */
    misfireThresholdMs: z
      .number({ invalid_type_error: 'misfireThresholdMs must be a number of milliseconds, e.g. 60000' })
      .int('misfireThresholdMs must be a whole number of milliseconds')
      .min(0, 'misfireThresholdMs must not be negative')
      .max(MAX_MISFIRE_THRESHOLD_MS, `misfireThresholdMs must be at most ${MAX_MISFIRE_THRESHOLD_MS} (7 days)`)
      .optional(),
    /** What happens to occurrences later than the threshold. @default 'fireOnce' */
    misfirePolicy: z
      .enum(['fireOnce', 'skip'], { errorMap: () => ({ message: "misfirePolicy must be 'fireOnce' or 'skip'" }) })
      .optional(),
  })
  .strict()
  .superRefine((spec, ctx) => {
    const recurring = spec.schedulingSpecification !== undefined;
    const oneOff = spec.singleSchedule !== undefined;
    if (recurring && oneOff) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: 'set exactly one of schedulingSpecification (recurring, cron) or singleSchedule (one-off instant), not both',
      });
    } else if (!recurring && !oneOff) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: 'set one of schedulingSpecification (a cron expression, for a recurring job) or singleSchedule (an ISO-8601 instant, for a one-off job)',
      });
    }
  });
export type JobSpecification = z.infer<typeof JobSpecification>;

/** A firing that was claimed and not yet settled; a runner that finds it stale redoes it (the receivers deduplicate). */
export const JobFiringInFlight = z.object({
  fireTime: z.date(),
  by: z.string(),
  claimedAt: z.date(),
  late: z.boolean(),
  lateByMs: z.number().int().nonnegative(),
  missedSince: z.date().nullable(),
  /** The tolerance `late` was decided with. Compatibility: optional; a firing claimed by an older runner has none. */
  lateToleranceMs: z.number().int().nonnegative().optional(),
  // Retry bookkeeping of a firing that failed transiently. Compatibility: all optional, so a firing
  // claimed by an older runner reads as "no attempt failed yet, not sent, no retry planned", and
  // an older runner ignores them.
  /** Failed attempts of this firing so far. */
  attempts: z.number().int().nonnegative().optional(),
  /** When a runner may try it again; null or absent while a runner is working on it. */
  retryAt: z.date().nullable().optional(),
  /** The trigger was sent by an earlier attempt (only recording the outcome failed): do not send it again. */
  sent: z.boolean().optional(),
  /** An earlier attempt decided the firing FAILED, for this reason (only recording it failed). */
  failedReason: z.string().nullable().optional(),
  /** What the last failed attempt hit, for operators. */
  lastError: z.string().optional(),
});
export type JobFiringInFlight = z.infer<typeof JobFiringInFlight>;

/** One job in the `job_specifications` collection: the specification plus what the runner needs to fire it. */
export const JobSpecificationDocument = z.object({
  _id: z.string(),
  /** 2 added the optional misfire fields; a version-1 document reads as the scheduler's defaults. */
  schemaVersion: z.union([z.literal(1), z.literal(2)]),
  jobSpecificationKey: z.string(),
  jobRequestor: z.string(),
  schedulingSpecification: z.string().nullable(),
  singleSchedule: z.date().nullable(),
  /** Resolved zone: the requested one in canonical spelling, or UTC. */
  zoneId: z.string(),
  calendar: JobCalendar.nullable(),
  triggerCommand: TriggerCommand,
  triggerIdentifier: z.string(),
  failureCommand: FailureCommand,
  failureIdentifier: z.string(),
  processingContext: ProcessingContext.nullable(),
  /** The job's own misfire threshold; absent: the scheduler's JOBS_MISFIRE_THRESHOLD_MS. Optional: version-1 documents have none. */
  misfireThresholdMs: z.number().int().nonnegative().optional(),
  /** Absent: `fireOnce`. Optional: version-1 documents have none. */
  misfirePolicy: MisfirePolicy.optional(),
  /** Current status, kept here so the due-jobs query needs no join; the history is in `job_execution_status`. */
  status: JobExecutionState,
  /** The next occurrence to fire; null once nothing more will fire. */
  nextFireTime: z.date().nullable(),
  lastFireTime: z.date().nullable(),
  inFlight: JobFiringInFlight.nullable(),
  /** Optimistic-concurrency version: every claim and status change is conditional on it. */
  revision: z.number().int().nonnegative(),
  createdAt: z.date(),
  updatedAt: z.date(),
  /** Set when the job is finished (one-off run or failed, canceled); the TTL index removes it then. */
  deleteTime: z.date().nullable(),
});
export type JobSpecificationDocument = z.infer<typeof JobSpecificationDocument>;
