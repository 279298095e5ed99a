import { clone, type JobExecutionStatusEntry, type JobSpecificationDocument } from '@sas/contracts';
import type { FiringClaim, FiringDeferral, FiringFinish, JobListFilter, JobStore } from './job-store';
import { compareStatusEntries } from './status-entry';

/**
 * {@link JobStore} in memory with the same conditional-write semantics as `MongoJobStore`: a
 * unique key, claims conditional on revision and status, settles conditional on the in-flight
 * firing, idempotent status appends. Documents go in and out as deep copies. TTL is not simulated.
 */
export class InMemoryJobStore implements JobStore {
  private readonly jobs = new Map<string, JobSpecificationDocument>();
  private readonly statuses = new Map<string, JobExecutionStatusEntry>();

  async insert(doc: JobSpecificationDocument, first: JobExecutionStatusEntry): Promise<{ ok: true } | { ok: false; reason: 'duplicate' }> {
    if (this.jobs.has(doc._id) || [...this.jobs.values()].some((j) => j.jobSpecificationKey === doc.jobSpecificationKey)) {
      return { ok: false, reason: 'duplicate' };
    }
    this.jobs.set(doc._id, clone(doc));
    await this.appendStatuses([first]);
    return { ok: true };
  }

  async getByKey(key: string): Promise<JobSpecificationDocument | null> {
    const found = [...this.jobs.values()].find((j) => j.jobSpecificationKey === key);
    return found ? clone(found) : null;
  }

  async list(filter: JobListFilter): Promise<JobSpecificationDocument[]> {
    return [...this.jobs.values()]
      .filter((j) => (filter.requestor === undefined || j.jobRequestor === filter.requestor) && (filter.includeFinished || j.status === 'SCHEDULED'))
      .sort((a, b) => a.jobSpecificationKey.localeCompare(b.jobSpecificationKey))
      .map((j) => clone(j));
  }

  async findDue(now: Date, limit: number): Promise<JobSpecificationDocument[]> {
    return [...this.jobs.values()]
      .filter((j) => j.status === 'SCHEDULED' && j.inFlight === null && j.nextFireTime !== null && j.nextFireTime.getTime() <= now.getTime())
      .sort((a, b) => (a.nextFireTime?.getTime() ?? 0) - (b.nextFireTime?.getTime() ?? 0))
      .slice(0, limit)
      .map((j) => clone(j));
  }

  async findInFlightToRetry(now: Date, claimedBefore: Date, limit: number): Promise<JobSpecificationDocument[]> {
    const due = (inFlight: NonNullable<JobSpecificationDocument['inFlight']>): boolean => {
      const retryAt = inFlight.retryAt ?? null;
      return retryAt ? retryAt.getTime() <= now.getTime() : inFlight.claimedAt.getTime() <= claimedBefore.getTime();
    };
    return [...this.jobs.values()]
      .filter((j) => j.status === 'SCHEDULED' && j.inFlight !== null && due(j.inFlight))
      .sort((a, b) => (a.inFlight?.claimedAt.getTime() ?? 0) - (b.inFlight?.claimedAt.getTime() ?? 0))
      .slice(0, limit)
      .map((j) => clone(j));
  }

  async claimFiring(id: string, expectedRevision: number, claim: FiringClaim): Promise<boolean> {
    const job = this.jobs.get(id);
    if (!job || job.revision !== expectedRevision || job.status !== 'SCHEDULED') return false;
    this.jobs.set(id, {
      ...job,
      nextFireTime: claim.nextFireTime,
      lastFireTime: claim.lastFireTime,
      inFlight: claim.inFlight && clone(claim.inFlight),
      updatedAt: claim.now,
      revision: job.revision + 1,
    });
    return true;
  }

  async settleFiring(id: string, fireTime: Date, by: string, finish: FiringFinish | null, now: Date): Promise<JobSpecificationDocument | null> {
    const job = this.jobs.get(id);
    if (!job || job.inFlight?.fireTime.getTime() !== fireTime.getTime() || job.inFlight.by !== by) return null;
    const next: JobSpecificationDocument = { ...job, inFlight: null, updatedAt: now, revision: job.revision + 1 };
    if (finish && job.status === 'SCHEDULED') Object.assign(next, { status: finish.status, nextFireTime: null, deleteTime: finish.deleteTime });
    this.jobs.set(id, next);
    return clone(next);
  }

  async deferFiring(id: string, fireTime: Date, by: string, deferral: FiringDeferral, now: Date): Promise<boolean> {
    const job = this.jobs.get(id);
    if (!job?.inFlight || job.inFlight.fireTime.getTime() !== fireTime.getTime() || job.inFlight.by !== by) return false;
    this.jobs.set(id, { ...job, inFlight: { ...job.inFlight, ...clone(deferral) }, updatedAt: now, revision: job.revision + 1 });
    return true;
  }

  async cancel(key: string, deleteTime: Date, now: Date): Promise<JobSpecificationDocument | null> {
    const job = [...this.jobs.values()].find((j) => j.jobSpecificationKey === key && j.status === 'SCHEDULED');
    if (!job) return null;
    const next: JobSpecificationDocument = { ...job, status: 'CANCELED', nextFireTime: null, deleteTime, updatedAt: now, revision: job.revision + 1 };
    this.jobs.set(job._id, next);
    return clone(next);
  }

  async appendStatuses(entries: readonly JobExecutionStatusEntry[]): Promise<void> {
    for (const e of entries) if (!this.statuses.has(e._id)) this.statuses.set(e._id, clone(e));
  }

  async expireStatuses(jobSpecificationId: string, keep: readonly string[], deleteTime: Date): Promise<void> {
    for (const e of this.statuses.values()) {
      if (e.jobSpecificationId === jobSpecificationId && e.deleteTime === null && !keep.includes(e._id)) e.deleteTime = deleteTime;
    }
  }

  async statusHistory(jobSpecificationId: string): Promise<JobExecutionStatusEntry[]> {
    return [...this.statuses.values()]
      .filter((e) => e.jobSpecificationId === jobSpecificationId)
      .sort(compareStatusEntries)
      .map((e) => clone(e));
  }

  async countScheduled(): Promise<number> {
    return [...this.jobs.values()].filter((j) => j.status === 'SCHEDULED').length;
  }

  /** Overwrites a stored job, as a concurrent writer (or a crash mid-firing) would leave it. */
  put(doc: JobSpecificationDocument): void {
    this.jobs.set(doc._id, clone(doc));
  }
}
