import type { BulkOperationDocument } from '@sas/contracts';
import type { BulkOperationStore } from './bulk-operation-store';

/** {@link BulkOperationStore} in memory, with the same conditional commits, for tests and the simulation. */
export class InMemoryBulkOperationStore implements BulkOperationStore {
  private readonly operations = new Map<string, BulkOperationDocument>();

  async insert(op: BulkOperationDocument): Promise<'inserted' | 'duplicate'> {
    if (this.operations.has(op._id)) return 'duplicate';
    this.operations.set(op._id, structuredClone(op));
    return 'inserted';
  }

  async get(id: string): Promise<BulkOperationDocument | null> {
    const op = this.operations.get(id);
    return op ? structuredClone(op) : null;
  }

  async list(limit: number): Promise<BulkOperationDocument[]> {
    return [...this.operations.values()]
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a._id < b._id ? 1 : -1))
      .slice(0, limit)
      .map((op) => structuredClone(op));
  }

  async findRunning(limit: number): Promise<BulkOperationDocument[]> {
    return [...this.operations.values()]
      .filter((op) => op.state === 'Running')
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .slice(0, limit)
      .map((op) => structuredClone(op));
  }

  async commit(next: BulkOperationDocument, expectedRevision: number): Promise<boolean> {
    if (this.operations.get(next._id)?.revision !== expectedRevision) return false;
    this.operations.set(next._id, structuredClone(next));
    return true;
  }
}
