import type { ProcessDocument, ProcessEventEntry } from '@sas/contracts';
import type { CommitResult } from './commit-result';

/** A history entry, with a deterministic `_id` when it comes from an outbox. */
export type HistoryRecord = ProcessEventEntry & { _id?: string };

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
  /** Pending processes whose notBefore has passed, oldest first. */
  findClaimable(now: Date, limit: number): Promise<ProcessDocument[]>;
  /** Held processes whose completeBy has passed, oldest first. */
  findExpired(now: Date, limit: number): Promise<ProcessDocument[]>;
  /**
   * Appends transitions to the history. An entry with an `_id` that is already stored is skipped,
   * so delivering the same outbox entry twice records it once.
   */
  appendEvents(entries: readonly HistoryRecord[]): Promise<void>;
  /** Empties the process's outbox if its revision is still `revision` (what was delivered is what it held). */
  clearOutbox(processId: string, revision: number): Promise<void>;
  /** Processes whose outbox still holds entries and which have not changed since `olderThan`: a crash left them owed. */
  findUndelivered(olderThan: Date, limit: number): Promise<ProcessDocument[]>;
  history(processId: string): Promise<ProcessEventEntry[]>;
}
