import type { Collection, Db, Filter } from 'mongodb';
import type { AuditEntry } from '@sas/contracts';

/** The MongoDB collection of the operator surface's audit log. */
export const AUDIT_LOG_COLLECTION = 'audit_log';

/** How long audit entries are kept unless the dashboard's `AUDIT_RETENTION_MS` says otherwise: 90 days. */
export const DEFAULT_AUDIT_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;

/** What {@link MongoAuditLog.list} selects; every field narrows the result. */
export interface AuditQuery {
  /** At most this many entries, newest first. */
  limit: number;
  principal?: string;
  action?: string;
  orderId?: string;
  /** Only entries older than this (the `at` of the last entry of the previous page). */
  before?: Date;
}

/** An audit entry as read back, with the id MongoDB gave it. */
export type StoredAuditEntry = AuditEntry & { _id: string };

/**
 * The audit log on MongoDB: append-only (entries are inserted, never updated) and bounded by a
 * TTL on `expiresAt`, so the retention is each entry's own and can change without an index change.
 */
export class MongoAuditLog {
  private readonly entries: Collection<AuditEntry>;

  constructor(db: Db) {
    this.entries = db.collection<AuditEntry>(AUDIT_LOG_COLLECTION);
  }

  /**
   * Creates the indexes; idempotent, called once at start.
   * - `expiresAt` TTL (expireAfterSeconds 0): an entry is removed once its retention has passed.
   * - `at` descending, alone and after `principal` and `orderId`: the newest-first list and its filters.
   */
  async ensureIndexes(): Promise<void> {
    await this.entries.createIndexes([
      { key: { expiresAt: 1 }, name: 'ttl', expireAfterSeconds: 0 },
      { key: { at: -1 }, name: 'recent' },
      { key: { principal: 1, at: -1 }, name: 'by-principal' },
      { key: { orderId: 1, at: -1 }, name: 'by-order' },
    ]);
  }

  /** Appends one entry. */
  async record(entry: AuditEntry): Promise<void> {
    await this.entries.insertOne({ ...entry });
  }

  /** Entries matching the query, newest first. */
  async list(query: AuditQuery): Promise<StoredAuditEntry[]> {
    const filter: Filter<AuditEntry> = {};
    if (query.principal !== undefined) filter.principal = query.principal;
    if (query.action !== undefined) filter.action = query.action;
    if (query.orderId !== undefined) filter.orderId = query.orderId;
    if (query.before !== undefined) filter.at = { $lt: query.before };
    const docs = await this.entries.find(filter).sort({ at: -1, _id: -1 }).limit(query.limit).toArray();
    return docs.map((d) => ({ ...d, _id: String(d._id) }));
  }
}
