import type { JobExecutionState, JobExecutionStatusEntry, JobSpecificationDocument } from '@sas/contracts';
import type { Lateness } from './plan-firing';

/** What one status entry says; see {@link statusEntry}. */
export interface StatusEntryInput {
  job: Pick<JobSpecificationDocument, '_id' | 'jobSpecificationKey'>;
  status: JobExecutionState;
  at: Date;
  /** The job's revision the entry belongs to. */
  revision: number;
  by: string;
  deleteTime: Date | null;
  fireTime?: Date;
  nextFireTime?: Date | null;
  reason?: string;
  lateness?: Lateness;
}

/**
 * Builds an entry of the append-only status history. Its `_id` is derived from the job, the fire
 * time and the status, so redoing a firing after a crash cannot append the same entry twice.
 */
export function statusEntry(input: StatusEntryInput): JobExecutionStatusEntry {
  const { job, fireTime, lateness } = input;
  const what = fireTime ? `${fireTime.getTime()}/${input.status}` : input.status;
  return {
    _id: `${job._id}/${what}`,
    jobSpecificationId: job._id,
    jobSpecificationKey: job.jobSpecificationKey,
    executionStatus: input.status,
    updatedTime: input.at,
    revision: input.revision,
    deleteTime: input.deleteTime,
    by: input.by,
    ...(fireTime ? { fireTime } : {}),
    ...(input.nextFireTime ? { nextFireTime: input.nextFireTime } : {}),
    ...(input.reason ? { reason: input.reason } : {}),
    // Every firing entry says how late it fired and against which tolerance; `late` only when past it.
    ...(lateness
      ? {
          ...(lateness.late ? { late: true } : {}),
          lateByMs: lateness.lateByMs,
          ...(lateness.missedSince ? { missedSince: lateness.missedSince } : {}),
          lateToleranceMs: lateness.lateToleranceMs,
        }
      : {}),
  };
}

/** Orders history as the IPF text defines it: by `updatedTime`, then by the job revision it belongs to. */
export function compareStatusEntries(a: JobExecutionStatusEntry, b: JobExecutionStatusEntry): number {
  return a.updatedTime.getTime() - b.updatedTime.getTime() || a.revision - b.revision;
}

/** The job's current status: the latest entry of its history, undefined for an empty history. */
export function currentStatusEntry(history: readonly JobExecutionStatusEntry[]): JobExecutionStatusEntry | undefined {
  return [...history].sort(compareStatusEntries).at(-1);
}
