import type { AuditEntry } from '@sas/contracts';
import type { AuditQuery, StoredAuditEntry } from '@sas/store';

/** The audit log in an array, for unit tests of the HTTP layer; `MongoAuditLog` is the real one. */
export class InMemoryAuditLog {
  readonly entries: AuditEntry[] = [];

  async record(entry: AuditEntry): Promise<void> {
    this.entries.push(entry);
  }

  async list(query: AuditQuery): Promise<StoredAuditEntry[]> {
    return this.entries
      .map((e, i) => ({ ...e, _id: String(i) }))
      .filter((e) => (query.principal === undefined || e.principal === query.principal) && (query.action === undefined || e.action === query.action) && (query.orderId === undefined || e.orderId === query.orderId) && (query.before === undefined || e.at < query.before))
      .reverse()
      .slice(0, query.limit);
  }
}
