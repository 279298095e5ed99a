import type { BulkOperationDocument } from '@sas/contracts';

/**
 * Where bulk operations are kept. Every change is conditional on the operation's `revision`, as a
 * process's are, so a runner that lost its lease cannot commit a page over another's.
 */
export interface BulkOperationStore {
  /** Inserts a new operation; `duplicate` when its id is taken. */
  insert(op: BulkOperationDocument): Promise<'inserted' | 'duplicate'>;
  get(id: string): Promise<BulkOperationDocument | null>;
  /** Newest first. */
  list(limit: number): Promise<BulkOperationDocument[]>;
  /** Running operations, oldest first. */
  findRunning(limit: number): Promise<BulkOperationDocument[]>;
  /** Replaces the operation if its revision is still `expectedRevision`; false when another runner moved it. */
  commit(next: BulkOperationDocument, expectedRevision: number): Promise<boolean>;
}
