import { z } from 'zod';
import { EpochMs, JsonObject } from './common';

/**
 * Where a job specification is in its life (IPF "Job Execution Status"):
 * - `SCHEDULED`: it will run (a recurring job may have run before);
 * - `TRIGGERED`: a one-off job ran and will not run again;
 * - `CANCELED`: it was scheduled and was canceled before running (again);
 * - `FAILED`: it failed to run.
 */
export const JobExecutionState = z.enum(['SCHEDULED', 'TRIGGERED', 'CANCELED', 'FAILED']);
export type JobExecutionState = z.infer<typeof JobExecutionState>;

/**
 * One entry of the append-only `job_execution_status` collection. A job's current status is its
 * entry with the latest `updatedTime` (ties broken by `revision`, the job's version when the entry
 * was written). Entries are never changed except to receive a `deleteTime`: a recurring job's
 * older entries get one when it fires, because only the newest is worth keeping.
 */
export const JobExecutionStatusEntry = z.object({
  /** Deterministic (`<jobSpecificationId>/<what>`), so a firing that is redone after a crash appends nothing twice. */
  _id: z.string(),
  jobSpecificationId: z.string(),
  /** Denormalised so an operator can read the history without a join. */
  jobSpecificationKey: z.string(),
  executionStatus: JobExecutionState,
  updatedTime: z.date(),
  /** The job's `revision` when this entry was written; orders entries with the same `updatedTime`. */
  revision: z.number().int().nonnegative(),
  /** The TTL index removes the entry after this; null keeps it. */
  deleteTime: z.date().nullable(),
  /** The fire time this entry is about (absent for create and cancel). */
  fireTime: z.date().optional(),
  /** When the job fires next, for SCHEDULED entries of recurring jobs. */
  nextFireTime: z.date().optional(),
  /** Why the job failed or was canceled. */
  reason: z.string().optional(),
  /** Present (true) exactly when the firing happened more than `lateToleranceMs` after its (first) occurrence. */
  late: z.boolean().optional(),
  /**
   * How long after its occurrence the firing happened (after the first of them, when several
   * collapsed into it), measured at the runner's clock read right before it claimed the firing and
   * sent its trigger: for a first attempt that is this entry's `updatedTime`.
   */
  lateByMs: z.number().int().nonnegative().optional(),
  /**
   * On every entry of a misfire (occurrences later than the misfire threshold: one or several,
   * fired once or skipped): the first of them. Absent on a firing within the threshold.
   * Compatibility: entries written before lone misfires carried it have it only when several misfired.
   */
  missedSince: z.date().optional(),
  /**
   * The tolerance `late` was decided with (JOBS_LATE_TOLERANCE_MS). Compatibility: optional, on
   * firing entries only; entries written before it was recorded have none.
   */
  lateToleranceMs: z.number().int().nonnegative().optional(),
  /** Instance or operator that wrote the entry. */
  by: z.string(),
});
export type JobExecutionStatusEntry = z.infer<typeof JobExecutionStatusEntry>;

/**
 * What a `{ type: 'message' }` trigger command puts on its queue at each fire time. The receiver
 * deduplicates on (`jobSpecificationKey`, `fireTime`): a firing redone after a crash sends the same pair.
 */
export const JobTriggerMessage = z.object({
  schemaVersion: z.literal(1),
  jobSpecificationKey: z.string(),
  triggerIdentifier: z.string(),
  fireTime: EpochMs,
  /** The job's `processingContext`, when it has one. */
  processingContext: z.record(z.string(), z.string()).optional(),
  /** The job's `triggerCommand.message`, unchanged. */
  command: JsonObject,
});
export type JobTriggerMessage = z.infer<typeof JobTriggerMessage>;

/** What a job's `failureCommand` queue receives when a firing fails. */
export const JobFailureMessage = z.object({
  schemaVersion: z.literal(1),
  jobSpecificationKey: z.string(),
  failureIdentifier: z.string(),
  fireTime: EpochMs,
  /** What went wrong, e.g. the queue error or the excluded calendar day. */
  reason: z.string(),
  processingContext: z.record(z.string(), z.string()).optional(),
  /** The job's `failureCommand.message`, unchanged. */
  command: JsonObject,
});
export type JobFailureMessage = z.infer<typeof JobFailureMessage>;
