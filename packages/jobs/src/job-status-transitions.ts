import type { JobExecutionState } from '@sas/contracts';

/**
 * The statuses a job may move to from each status. Only a SCHEDULED job changes: it fires again
 * (SCHEDULED), finishes (TRIGGERED), fails (FAILED) or is canceled (CANCELED). The other three are
 * final, get a `deleteTime`, and disappear from queries and rehydration.
 */
export const JOB_STATUS_TRANSITIONS: Readonly<Record<JobExecutionState, readonly JobExecutionState[]>> = {
  SCHEDULED: ['SCHEDULED', 'TRIGGERED', 'CANCELED', 'FAILED'],
  TRIGGERED: [],
  CANCELED: [],
  FAILED: [],
};

/** True when a job in status `from` may move to `to`. */
export function canTransition(from: JobExecutionState, to: JobExecutionState): boolean {
  return JOB_STATUS_TRANSITIONS[from].includes(to);
}

/** True for the final statuses, which give the job a `deleteTime`. */
export function isFinished(status: JobExecutionState): boolean {
  return JOB_STATUS_TRANSITIONS[status].length === 0;
}

/** What a firing appends to the status history, oldest first; the last one is the job's new status. */
export interface FiringStatuses {
  entries: JobExecutionState[];
  status: JobExecutionState;
}

/**
 * The statuses a firing leads to. A recurring job stays SCHEDULED while it has a next fire time
 * even when this firing failed (the FAILED entry records the failure, the SCHEDULED one says it
 * runs again); a one-off job ends TRIGGERED or FAILED.
 */
export function statusesAfterFiring(sent: boolean, hasNextFireTime: boolean): FiringStatuses {
  const entries: JobExecutionState[] = [];
  if (!sent) entries.push('FAILED');
  if (hasNextFireTime) entries.push('SCHEDULED');
  else if (sent) entries.push('TRIGGERED');
  const status = entries[entries.length - 1] ?? 'FAILED';
  return { entries, status };
}
