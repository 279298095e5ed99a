import { MongoBulkWriteError, MongoServerError, type Collection, type Db } from 'mongodb';
import type { OutboxEntry, ProcessDocument, ProcessEventEntry } from '@sas/contracts';
import { CollectionNames } from './collection-names';
import { mergeHistory } from './merge-history';
import type { CommitResult } from './commit-result';
import type { HistoryRecord, ProcessStore, QuarantineFields } from './process-store';
import { OWED_OUTBOX_PROJECTION, PROCESS_SUMMARY_PROJECTION, type OwedOutbox, type ProcessSummary } from './process-summary';

const DUPLICATE_KEY = 11000;

/** {@link ProcessStore} on MongoDB: single-document conditional writes, no transactions needed. */
export class MongoProcessStore implements ProcessStore {
  private readonly processes: Collection<ProcessDocument>;
  private readonly events: Collection<HistoryRecord>;

  constructor(db: Db) {
    this.processes = db.collection<ProcessDocument>(CollectionNames.processes);
    this.events = db.collection<HistoryRecord>(CollectionNames.processEvents);
  }

  async insert(doc: ProcessDocument): Promise<CommitResult> {
    try {
      await this.processes.insertOne(doc);
      return { ok: true };
    } catch (e) {
      if (e instanceof MongoServerError && e.code === DUPLICATE_KEY) return { ok: false, reason: 'duplicate' };
      throw e;
    }
  }

  async commit(next: ProcessDocument, expectedRevision: number): Promise<CommitResult> {
    const result = await this.processes.replaceOne({ _id: next._id, revision: expectedRevision }, next);
    return result.matchedCount === 1 ? { ok: true } : { ok: false, reason: 'conflict' };
  }

  get(processId: string): Promise<ProcessDocument | null> {
    return this.processes.findOne({ _id: processId });
  }

  getByOrderId(orderId: string): Promise<ProcessDocument | null> {
    return this.processes.findOne({ orderId });
  }

  findClaimable(now: Date, limit: number): Promise<ProcessSummary[]> {
    return this.processes
      .find<ProcessSummary>({ state: 'Pending', notBefore: { $lte: now } }, { projection: PROCESS_SUMMARY_PROJECTION })
      .sort({ notBefore: 1 })
      .limit(limit)
      .toArray();
  }

  findHeld(agent: string, limit: number): Promise<ProcessSummary[]> {
    return this.processes
      .find<ProcessSummary>({ heldFor: agent, state: 'Pending' }, { projection: PROCESS_SUMMARY_PROJECTION })
      .sort({ updatedAt: 1 })
      .limit(limit)
      .toArray();
  }

  findExpired(now: Date, limit: number): Promise<ProcessSummary[]> {
    return this.processes
      .find<ProcessSummary>(
        { state: { $in: ['Processing', 'Compensating'] }, completeBy: { $lte: now } },
        { projection: PROCESS_SUMMARY_PROJECTION },
      )
      .sort({ completeBy: 1 })
      .limit(limit)
      .toArray();
  }

  async quarantine(processId: string, expectedRevision: number, fields: QuarantineFields, owed: readonly OutboxEntry[]): Promise<CommitResult> {
    const result = await this.processes.updateOne(
      { _id: processId, revision: expectedRevision },
      { $set: { ...fields, outboxSince: fields.updatedAt }, $push: { outbox: { $each: [...owed] } } },
    );
    return result.matchedCount === 1 ? { ok: true } : { ok: false, reason: 'conflict' };
  }

  async expireHistory(processId: string, deleteTime: Date): Promise<void> {
    await this.events.updateMany({ processId, deleteTime: null }, { $set: { deleteTime } });
  }

  async appendEvents(entries: readonly HistoryRecord[]): Promise<void> {
    if (entries.length === 0) return;
    try {
      await this.events.insertMany(
        entries.map((e) => ({ ...e })),
        { ordered: false },
      );
    } catch (e) {
      // Entries delivered before (same `_id`) are skipped; any other failure is real.
      const duplicatesOnly =
        e instanceof MongoBulkWriteError &&
        (Array.isArray(e.writeErrors) ? e.writeErrors : [e.writeErrors]).every((w) => w.code === DUPLICATE_KEY);
      if (!duplicatesOnly) throw e;
    }
  }

  async clearOutbox(processId: string, revision: number, keep: readonly OutboxEntry[] = []): Promise<void> {
    await this.processes.updateOne({ _id: processId, revision }, { $set: { outbox: [...keep], outboxSince: null } });
  }

  findUndelivered(olderThan: Date, limit: number): Promise<OwedOutbox[]> {
    return this.processes
      .find<OwedOutbox>({ outboxSince: { $lte: olderThan } }, { projection: OWED_OUTBOX_PROJECTION })
      .sort({ outboxSince: 1 })
      .limit(limit)
      .toArray();
  }

  async history(processId: string): Promise<ProcessEventEntry[]> {
    const [delivered, owed] = await Promise.all([
      this.events.find({ processId }).sort({ at: 1 }).toArray(),
      this.processes.findOne<Pick<ProcessDocument, 'outbox'>>({ _id: processId }, { projection: { _id: 0, outbox: 1 } }),
    ]);
    return mergeHistory(delivered, owed?.outbox);
  }
}
