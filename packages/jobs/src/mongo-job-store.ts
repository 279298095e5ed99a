import { MongoServerError, type Collection, type Db, type Filter, type UpdateFilter } from 'mongodb';
import type { JobExecutionStatusEntry, JobSpecificationDocument } from '@sas/contracts';
import { JobCollectionNames } from './job-collection-names';
import type { FiringClaim, FiringDeferral, FiringFinish, JobListFilter, JobStore } from './job-store';

const DUPLICATE_KEY = 11000;

/** {@link JobStore} on MongoDB: single-document conditional writes, no transactions needed. */
export class MongoJobStore implements JobStore {
  private readonly jobs: Collection<JobSpecificationDocument>;
  private readonly statuses: Collection<JobExecutionStatusEntry>;

  constructor(db: Db) {
    this.jobs = db.collection<JobSpecificationDocument>(JobCollectionNames.jobSpecifications);
    this.statuses = db.collection<JobExecutionStatusEntry>(JobCollectionNames.jobExecutionStatus);
  }

  async insert(doc: JobSpecificationDocument, first: JobExecutionStatusEntry): Promise<{ ok: true } | { ok: false; reason: 'duplicate' }> {
    try {
      await this.jobs.insertOne(doc);
    } catch (e) {
      if (e instanceof MongoServerError && e.code === DUPLICATE_KEY) return { ok: false, reason: 'duplicate' };
      throw e;
    }
    await this.appendStatuses([first]);
    return { ok: true };
  }

  getByKey(key: string): Promise<JobSpecificationDocument | null> {
    return this.jobs.findOne({ jobSpecificationKey: key });
  }

  list(filter: JobListFilter): Promise<JobSpecificationDocument[]> {
    const query: Filter<JobSpecificationDocument> = {};
    if (filter.requestor !== undefined) query.jobRequestor = filter.requestor;
    if (!filter.includeFinished) query.status = 'SCHEDULED';
    return this.jobs.find(query).sort({ jobSpecificationKey: 1 }).toArray();
  }

  findDue(now: Date, limit: number): Promise<JobSpecificationDocument[]> {
    return this.jobs
      .find({ status: 'SCHEDULED', nextFireTime: { $lte: now }, inFlight: null })
      .sort({ nextFireTime: 1 })
      .limit(limit)
      .toArray();
  }

  findInFlightToRetry(now: Date, claimedBefore: Date, limit: number): Promise<JobSpecificationDocument[]> {
    return this.jobs
      .find({
        status: 'SCHEDULED',
        inFlight: { $ne: null },
        $or: [
          { 'inFlight.retryAt': { $lte: now } },
          // `null` also matches a firing claimed by an older runner, which has no retryAt at all.
          { 'inFlight.retryAt': null, 'inFlight.claimedAt': { $lte: claimedBefore } },
        ],
      } as Filter<JobSpecificationDocument>)
      .sort({ 'inFlight.claimedAt': 1 })
      .limit(limit)
      .toArray();
  }

  async claimFiring(id: string, expectedRevision: number, claim: FiringClaim): Promise<boolean> {
    const result = await this.jobs.updateOne(
      { _id: id, revision: expectedRevision, status: 'SCHEDULED' },
      {
        $set: { nextFireTime: claim.nextFireTime, lastFireTime: claim.lastFireTime, inFlight: claim.inFlight, updatedAt: claim.now },
        $inc: { revision: 1 },
      },
    );
    return result.matchedCount === 1;
  }

  async settleFiring(id: string, fireTime: Date, by: string, finish: FiringFinish | null, now: Date): Promise<JobSpecificationDocument | null> {
    const inFlight = { _id: id, 'inFlight.fireTime': fireTime, 'inFlight.by': by };
    if (finish) {
      const finished = await this.jobs.findOneAndUpdate(
        { ...inFlight, status: 'SCHEDULED' },
        {
          $set: { inFlight: null, status: finish.status, nextFireTime: null, deleteTime: finish.deleteTime, updatedAt: now },
          $inc: { revision: 1 },
        },
        { returnDocument: 'after' },
      );
      if (finished) return finished;
    }
    // A recurring job continues, or the job was canceled meanwhile: only the in-flight mark goes.
    return this.jobs.findOneAndUpdate(
      inFlight,
      { $set: { inFlight: null, updatedAt: now }, $inc: { revision: 1 } },
      { returnDocument: 'after' },
    );
  }

  async deferFiring(id: string, fireTime: Date, by: string, deferral: FiringDeferral, now: Date): Promise<boolean> {
    const result = await this.jobs.updateOne(
      { _id: id, 'inFlight.fireTime': fireTime, 'inFlight.by': by },
      {
        $set: {
          'inFlight.attempts': deferral.attempts,
          'inFlight.retryAt': deferral.retryAt,
          'inFlight.sent': deferral.sent,
          'inFlight.failedReason': deferral.failedReason,
          'inFlight.lastError': deferral.lastError,
          updatedAt: now,
        },
        $inc: { revision: 1 },
      } as UpdateFilter<JobSpecificationDocument>,
    );
    return result.matchedCount === 1;
  }

  cancel(key: string, deleteTime: Date, now: Date): Promise<JobSpecificationDocument | null> {
    return this.jobs.findOneAndUpdate(
      { jobSpecificationKey: key, status: 'SCHEDULED' },
      { $set: { status: 'CANCELED', nextFireTime: null, deleteTime, updatedAt: now }, $inc: { revision: 1 } },
      { returnDocument: 'after' },
    );
  }

  async appendStatuses(entries: readonly JobExecutionStatusEntry[]): Promise<void> {
    for (const entry of entries) {
      try {
        await this.statuses.insertOne({ ...entry });
      } catch (e) {
        // The same firing written again after a crash: the entry is already there.
        if (!(e instanceof MongoServerError && e.code === DUPLICATE_KEY)) throw e;
      }
    }
  }

  async expireStatuses(jobSpecificationId: string, keep: readonly string[], deleteTime: Date): Promise<void> {
    await this.statuses.updateMany(
      { jobSpecificationId, deleteTime: null, _id: { $nin: [...keep] } },
      { $set: { deleteTime } },
    );
  }

  statusHistory(jobSpecificationId: string): Promise<JobExecutionStatusEntry[]> {
    return this.statuses.find({ jobSpecificationId }).sort({ updatedTime: 1, revision: 1 }).toArray();
  }

  countScheduled(): Promise<number> {
    return this.jobs.countDocuments({ status: 'SCHEDULED' });
  }
}
