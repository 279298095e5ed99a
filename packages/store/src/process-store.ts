import type { OutboxEntry, ProcessDocument, ProcessEventEntry } from '@sas/contracts';
import type { CommitResult } from './commit-result';
import type { OwedOutbox, ProcessSummary } from './process-summary';

/** A history entry, with a deterministic `_id` when it comes from an outbox. */
export type HistoryRecord = ProcessEventEntry & { _id?: string };

/** Fields a quarantine sets: the process is given up to an operator without reading it whole. */
export type QuarantineFields = Pick<ProcessDocument, 'state' | 'lockedBy' | 'completeBy' | 'reason' | 'revision' | 'attempt' | 'updatedAt' | 'deleteTime'>;

/**
 * The state store as the scheduler, supervisor and submission logic see it. Every write is
 * conditional on the document's `revision`, so two writers never both win.
 * Implemented by {@link MongoProcessStore}; a simulation implements it in memory.
 */
export interface ProcessStore {
  /** Inserts a new process; `duplicate` when its orderId exists. */
  insert(doc: ProcessDocument): Promise<CommitResult>;
  /** Replaces the document if its revision is still `expectedRevision` (next's revision is expectedRevision + 1). */
  commit(next: ProcessDocument, expectedRevision: number): Promise<CommitResult>;
  get(processId: string): Promise<ProcessDocument | null>;
  getByOrderId(orderId: string): Promise<ProcessDocument | null>;
  /** Pending processes whose notBefore has passed, oldest first: summaries only, never payloads. */
  findClaimable(now: Date, limit: number): Promise<ProcessSummary[]>;
  /**
   * Pending processes held for the paused (or since resumed) `agent`, longest held first:
   * summaries only. What the release of held work claims once the agent is resumed.
   */
  findHeld(agent: string, limit: number): Promise<ProcessSummary[]>;
  /** Held processes whose completeBy has passed, oldest first: summaries only, never payloads. */
  findExpired(now: Date, limit: number): Promise<ProcessSummary[]>;
  /**
   * Gives a process that cannot be handled up to an operator (state Error) if its revision is
   * still `expectedRevision`, appending `owed` to its outbox; the document is not read, so this
   * works on one that cannot be decoded.
   */
  quarantine(processId: string, expectedRevision: number, fields: QuarantineFields, owed: readonly OutboxEntry[]): Promise<CommitResult>;
  /**
   * Appends transitions to the history. An entry with an `_id` that is already stored is skipped,
   * so delivering the same outbox entry twice records it once.
   */
  appendEvents(entries: readonly HistoryRecord[]): Promise<void>;
  /** Dates the process's undated history entries: it finished, so its history may go after `deleteTime`. */
  expireHistory(processId: string, deleteTime: Date): Promise<void>;
  /**
   * Replaces the process's outbox by `keep` (the history entries that wait for the process to finish;
   * empty by default) if its revision is still `revision` (what was delivered is what it held), and
   * unmarks it for the sweep.
   */
  clearOutbox(processId: string, revision: number, keep?: readonly OutboxEntry[]): Promise<void>;
  /** Processes whose outbox has been owed since `olderThan` or earlier: a crash (or an outage) left them owed. */
  findUndelivered(olderThan: Date, limit: number): Promise<OwedOutbox[]>;
  /** The process's transitions by time: those in `process_events` and those its outbox still owes (decision 62). */
  history(processId: string): Promise<ProcessEventEntry[]>;
}
