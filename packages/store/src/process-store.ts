import type { ProcessDocument, ProcessEventEntry } from '@sas/contracts';
import type { CommitResult } from './commit-result';

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
  /** Appends transitions to the history. */
  appendEvents(entries: readonly ProcessEventEntry[]): Promise<void>;
  history(processId: string): Promise<ProcessEventEntry[]>;
}
