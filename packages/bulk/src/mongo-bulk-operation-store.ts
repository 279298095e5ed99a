import { BulkOperationDocument } from '@sas/contracts';
import { MongoServerError, type Collection, type Db } from 'mongodb';
import type { BulkOperationStore } from './bulk-operation-store';

/** The collection bulk operations live in. */
export const BULK_OPERATIONS_COLLECTION = 'bulk_operations';

/**
 * Creates the bulk operations' indexes. Idempotent.
 * - `state + createdAt`: runners look for Running operations, oldest first.
 * - `createdAt`: the list, newest first.
 * - `deleteTime` TTL: a finished operation is removed once its retention has passed.
 */
export async function ensureBulkIndexes(db: Db): Promise<void> {
  await db.collection(BULK_OPERATIONS_COLLECTION).createIndexes([
    { key: { state: 1, createdAt: 1 }, name: 'running' },
    { key: { createdAt: -1 }, name: 'recent' },
    { key: { deleteTime: 1 }, name: 'ttl', expireAfterSeconds: 0 },
  ]);
}

/** {@link BulkOperationStore} on MongoDB; documents are validated as they are read. */
export class MongoBulkOperationStore implements BulkOperationStore {
  private readonly operations: Collection<BulkOperationDocument>;

  constructor(db: Db) {
    this.operations = db.collection<BulkOperationDocument>(BULK_OPERATIONS_COLLECTION);
  }

  async insert(op: BulkOperationDocument): Promise<'inserted' | 'duplicate'> {
    try {
      await this.operations.insertOne(op);
      return 'inserted';
    } catch (e) {
      if (e instanceof MongoServerError && e.code === 11000) return 'duplicate';
      throw e;
    }
  }

  async get(id: string): Promise<BulkOperationDocument | null> {
    const doc = await this.operations.findOne({ _id: id });
    return doc ? BulkOperationDocument.parse(doc) : null;
  }

  async list(limit: number): Promise<BulkOperationDocument[]> {
    const docs = await this.operations.find({}).sort({ createdAt: -1, _id: -1 }).limit(limit).toArray();
    return docs.map((d) => BulkOperationDocument.parse(d));
  }

  async findRunning(limit: number): Promise<BulkOperationDocument[]> {
    const docs = await this.operations.find({ state: 'Running' }).sort({ createdAt: 1 }).limit(limit).toArray();
    return docs.map((d) => BulkOperationDocument.parse(d));
  }

  async commit(next: BulkOperationDocument, expectedRevision: number): Promise<boolean> {
    const result = await this.operations.replaceOne({ _id: next._id, revision: expectedRevision }, next);
    return result.matchedCount === 1;
  }
}
