import type { JobExecutionState, JobExecutionStatusEntry, JobFiringInFlight, JobSpecificationDocument } from '@sas/contracts';

/**
 * How a firing is claimed: the job's next fire time moves on and the claimed firing is marked in
 * flight. A skip of misfired occurrences moves the next fire time with nothing in flight (null).
 */
export interface FiringClaim {
  nextFireTime: Date | null;
  lastFireTime: Date | null;
  inFlight: JobFiringInFlight | null;
  now: Date;
}

/** What a failed attempt of a firing leaves behind, so another attempt follows; see {@link JobStore.deferFiring}. */
export interface FiringDeferral {
  attempts: number;
  retryAt: Date;
  sent: boolean;
  failedReason: string | null;
  lastError: string;
}

/** Ends a one-off job (or a recurring one with no next occurrence) when its firing is settled. */
export interface FiringFinish {
  status: JobExecutionState;
  deleteTime: Date;
}

/** Which jobs {@link JobStore.list} returns. */
export interface JobListFilter {
  requestor?: string;
  /** Include finished jobs (TRIGGERED, FAILED, CANCELED) the TTL has not removed yet. @default false */
  includeFinished?: boolean;
}

/**
 * The job store as the runner and the specification service see it. Every change to a job is
 * conditional (on its `revision`, or on the in-flight firing it settles), so two runners never
 * both claim one firing. Implemented on MongoDB by {@link MongoJobStore}; tests and the
 * simulation use an in-memory one with the same semantics.
 */
export interface JobStore {
  /** Inserts a job and its first status entry; `duplicate` when its key exists. */
  insert(doc: JobSpecificationDocument, first: JobExecutionStatusEntry): Promise<{ ok: true } | { ok: false; reason: 'duplicate' }>;
  /** The job with this key, finished or not (until the TTL removes it). */
  getByKey(key: string): Promise<JobSpecificationDocument | null>;
  /** Jobs by key, unfinished only unless asked. */
  list(filter: JobListFilter): Promise<JobSpecificationDocument[]>;
  /** SCHEDULED jobs with no firing in flight whose next fire time is at or before `now`, earliest first. */
  findDue(now: Date, limit: number): Promise<JobSpecificationDocument[]>;
  /**
   * SCHEDULED jobs whose in-flight firing should be tried again: its planned retry time
   * (`inFlight.retryAt`) is at or before `now`, or no retry is planned and it was claimed at or
   * before `claimedBefore` (its runner died or lost its store mid-firing). Earliest claim first.
   */
  findInFlightToRetry(now: Date, claimedBefore: Date, limit: number): Promise<JobSpecificationDocument[]>;
  /** Claims a firing if the job is still SCHEDULED at `expectedRevision`; false when someone else changed it first. */
  claimFiring(id: string, expectedRevision: number, claim: FiringClaim): Promise<boolean>;
  /**
   * Clears the in-flight firing `fireTime` claimed by `by`, and applies `finish` if the job is still
   * SCHEDULED. Returns the job after the change, or null when that firing is no longer in flight
   * (another runner took it over).
   */
  settleFiring(id: string, fireTime: Date, by: string, finish: FiringFinish | null, now: Date): Promise<JobSpecificationDocument | null>;
  /**
   * Leaves the in-flight firing `fireTime` claimed by `by` in flight for a later attempt, recording
   * the attempt count, when to retry, and whether the trigger went out. False when that firing is
   * no longer this runner's (another runner took it over).
   */
  deferFiring(id: string, fireTime: Date, by: string, deferral: FiringDeferral, now: Date): Promise<boolean>;
  /** Cancels a SCHEDULED job; returns it after the change, or null when there is no SCHEDULED job with that key. */
  cancel(key: string, deleteTime: Date, now: Date): Promise<JobSpecificationDocument | null>;
  /** Appends status entries; an entry whose `_id` exists is skipped (redone firings). */
  appendStatuses(entries: readonly JobExecutionStatusEntry[]): Promise<void>;
  /** Gives every entry of the job without a deleteTime, except `keep`, this `deleteTime` (the job finished). */
  expireStatuses(jobSpecificationId: string, keep: readonly string[], deleteTime: Date): Promise<void>;
  /** The job's status history, oldest first (updatedTime, then revision). */
  statusHistory(jobSpecificationId: string): Promise<JobExecutionStatusEntry[]>;
  /** How many jobs are SCHEDULED: what a runner rehydrates when it takes over. */
  countScheduled(): Promise<number>;
}
