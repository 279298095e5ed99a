import { clone, type OutboxEntry, type ProcessDocument, type ProcessEventEntry, type ProcessState } from '@sas/contracts';
import type { CommitResult } from './commit-result';
import { mergeHistory } from './merge-history';
import type { HistoryRecord, ProcessStore, QuarantineFields } from './process-store';
import { summarize, type OwedOutbox, type ProcessSummary } from './process-summary';

/** Options of {@link InMemoryProcessStore}. */
export interface InMemoryProcessStoreOptions {
  /**
   * Called at the start of every `commit`, before the revision is compared, with a copy of the
   * document about to be written. A test (or the simulation) writes here as a concurrent writer
   * would, to make the commit lose its race. The hook runs for commits it makes itself too, so a
   * hook that commits must guard against calling itself forever.
   */
  beforeCommit?: (next: ProcessDocument, expectedRevision: number) => void | Promise<void>;
}

/** States the supervisor sweeps, as in {@link MongoProcessStore.findExpired}. */
const HELD_STATES: readonly ProcessState[] = ['Processing', 'Compensating'];

/**
 * {@link ProcessStore} in memory, with the same conditional-write semantics as
 * {@link MongoProcessStore}: a unique `orderId`, `commit` only when the stored revision is the
 * expected one, the same claim and sweep filters and sort orders. It is the seam for the
 * deterministic simulation and for fast component tests that need no MongoDB.
 *
 * Every document goes in and comes out as a deep copy, so no caller can change stored state
 * except through a write. The TTL on `deleteTime` is not simulated: documents stay until the
 * store is dropped.
 *
 * @example
 * ```ts
 * const store = new InMemoryProcessStore();
 * await store.insert(createProcess({ processId, orderId, payload, replyTo: null, workflow, now }));
 * const engine = new ProcessEngine({ store, outbox, registry, clock, who, replyQueue, logger });
 * ```
 */
export class InMemoryProcessStore implements ProcessStore {
  /** Processes by `_id`; a Map keeps insertion order, which is the tie-break of every sort. */
  private readonly processes = new Map<string, ProcessDocument>();
  /** `orderId` → `_id`: the unique index. */
  private readonly orderIds = new Map<string, string>();
  /** History by process, in append order; ids kept apart for the `_id` index's dedup. */
  private readonly events = new Map<string, HistoryRecord[]>();
  private readonly eventIds = new Set<string>();

  constructor(private readonly options: InMemoryProcessStoreOptions = {}) {}

  async insert(doc: ProcessDocument): Promise<CommitResult> {
    if (this.processes.has(doc._id) || this.orderIds.has(doc.orderId))
      return { ok: false, reason: 'duplicate' };
    this.processes.set(doc._id, clone(doc));
    this.orderIds.set(doc.orderId, doc._id);
    return { ok: true };
  }

  async commit(next: ProcessDocument, expectedRevision: number): Promise<CommitResult> {
    if (this.options.beforeCommit) await this.options.beforeCommit(clone(next), expectedRevision);
    const stored = this.processes.get(next._id);
    if (!stored || stored.revision !== expectedRevision) return { ok: false, reason: 'conflict' };
    if (next.orderId !== stored.orderId) {
      const owner = this.orderIds.get(next.orderId);
      if (owner !== undefined && owner !== next._id) {
        // MongoDB's unique index throws here too (E11000); no transition changes orderId, so it is a bug.
        throw new Error(
          `Cannot commit process ${next._id}: orderId '${next.orderId}' belongs to process ${owner}; a process's orderId never changes`,
        );
      }
      this.orderIds.delete(stored.orderId);
      this.orderIds.set(next.orderId, next._id);
    }
    this.processes.set(next._id, clone(next));
    return { ok: true };
  }

  async get(processId: string): Promise<ProcessDocument | null> {
    const doc = this.processes.get(processId);
    return doc ? clone(doc) : null;
  }

  async getByOrderId(orderId: string): Promise<ProcessDocument | null> {
    const id = this.orderIds.get(orderId);
    return id === undefined ? null : this.get(id);
  }

  /** `{ state: 'Pending', notBefore: { $lte: now } }` sorted by notBefore; `limit` 0 means none, as in MongoDB. */
  async findClaimable(now: Date, limit: number): Promise<ProcessSummary[]> {
    const matches = [...this.processes.values()].filter(
      (d) => d.state === 'Pending' && d.notBefore.getTime() <= now.getTime(),
    );
    return take(
      matches.sort((a, b) => a.notBefore.getTime() - b.notBefore.getTime()),
      limit,
    ).map(summarize);
  }

  /** `{ heldFor: agent, state: 'Pending' }` sorted by updatedAt. */
  async findHeld(agent: string, limit: number): Promise<ProcessSummary[]> {
    const matches = [...this.processes.values()].filter((d) => d.heldFor === agent && d.state === 'Pending');
    return take(
      matches.sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime()),
      limit,
    ).map(summarize);
  }

  /** `{ state: { $in: [Processing, Compensating] }, completeBy: { $lte: now } }` sorted by completeBy. */
  async findExpired(now: Date, limit: number): Promise<ProcessSummary[]> {
    const matches = [...this.processes.values()].filter(
      (d): d is ProcessDocument & { completeBy: Date } =>
        HELD_STATES.includes(d.state) && d.completeBy !== null && d.completeBy.getTime() <= now.getTime(),
    );
    return take(
      matches.sort((a, b) => a.completeBy.getTime() - b.completeBy.getTime()),
      limit,
    ).map(summarize);
  }

  async quarantine(processId: string, expectedRevision: number, fields: QuarantineFields, owed: readonly OutboxEntry[]): Promise<CommitResult> {
    const stored = this.processes.get(processId);
    if (!stored || stored.revision !== expectedRevision) return { ok: false, reason: 'conflict' };
    Object.assign(stored, clone(fields), { outboxSince: fields.updatedAt });
    stored.outbox = [...(stored.outbox ?? []), ...clone([...owed])];
    return { ok: true };
  }

  async expireHistory(processId: string, deleteTime: Date): Promise<void> {
    for (const e of this.events.get(processId) ?? []) if (e.deleteTime === null) e.deleteTime = new Date(deleteTime);
  }

  async appendEvents(entries: readonly HistoryRecord[]): Promise<void> {
    for (const entry of entries) {
      // As MongoDB's `_id` index: an entry delivered twice is recorded once.
      if (entry._id !== undefined) {
        if (this.eventIds.has(entry._id)) continue;
        this.eventIds.add(entry._id);
      }
      const list = this.events.get(entry.processId) ?? [];
      list.push(clone(entry));
      this.events.set(entry.processId, list);
    }
  }

  async clearOutbox(processId: string, revision: number, keep: readonly OutboxEntry[] = []): Promise<void> {
    const stored = this.processes.get(processId);
    if (stored && stored.revision === revision) {
      stored.outbox = clone([...keep]);
      stored.outboxSince = null;
    }
  }

  /** `{ outboxSince: { $lte: olderThan } }` sorted by outboxSince. */
  async findUndelivered(olderThan: Date, limit: number): Promise<OwedOutbox[]> {
    const matches = [...this.processes.values()].filter(
      // Not `instanceof Date`: a copy may make Dates of the main realm, which jest's realm does not know.
      (d): d is ProcessDocument & { outboxSince: Date } => d.outboxSince != null && d.outboxSince.getTime() <= olderThan.getTime(),
    );
    return take(
      matches.sort((a, b) => a.outboxSince.getTime() - b.outboxSince.getTime()),
      limit,
    ).map(({ _id, orderId, revision, outbox, deleteTime }) => ({ _id, orderId, revision, outbox, deleteTime }));
  }

  /** The process's transitions by `at`, delivered and still owed, in append order where times are equal. */
  async history(processId: string): Promise<ProcessEventEntry[]> {
    return clone(mergeHistory(this.events.get(processId) ?? [], this.processes.get(processId)?.outbox));
  }

  /**
   * Reads every stored process in insertion order without copying it: for the simulation's checks,
   * which run often and only look. `read` must not change what it is given.
   */
  inspect<T>(read: (doc: Readonly<ProcessDocument>) => T): T[] {
    return [...this.processes.values()].map(read);
  }

  /** Every stored process in insertion order, for assertions and the simulation's invariant checks. */
  list(): ProcessDocument[] {
    return [...this.processes.values()].map((d) => clone(d));
  }
}

/** MongoDB's `limit`: 0 means no limit, a negative value its absolute value. */
function take<T>(sorted: T[], limit: number): T[] {
  const kept = limit === 0 ? sorted : sorted.slice(0, Math.abs(limit));
  return kept.map((d) => clone(d));
}
