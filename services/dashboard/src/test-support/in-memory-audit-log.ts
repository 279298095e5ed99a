import type { AuditEntry } from '@sas/contracts';
import type { AuditQuery, StoredAuditEntry } from '@sas/store';

/** The audit log in an array, for unit tests of the HTTP layer; `MongoAuditLog` is the real one. */
export class InMemoryAuditLog {
  readonly entries: AuditEntry[] = [];
  private readonly waiting: { match: (e: AuditEntry) => boolean; found: (e: AuditEntry) => void }[] = [];

  async record(entry: AuditEntry): Promise<void> {
    this.entries.push(entry);
    for (const w of this.waiting.filter((w) => w.match(entry))) {
      this.waiting.splice(this.waiting.indexOf(w), 1);
      w.found(entry);
    }
  }

  /** The first entry (stored or yet to come) that matches: entries are stored after the answer is sent. */
  next(match: (e: AuditEntry) => boolean): Promise<AuditEntry> {
    const stored = this.entries.find(match);
    return stored ? Promise.resolve(stored) : new Promise((found) => this.waiting.push({ match, found }));
  }

  async list(query: AuditQuery): Promise<StoredAuditEntry[]> {
    return this.entries
      .map((e, i) => ({ ...e, _id: String(i) }))
      .filter((e) => (query.principal === undefined || e.principal === query.principal) && (query.action === undefined || e.action === query.action) && (query.orderId === undefined || e.orderId === query.orderId) && (query.before === undefined || e.at < query.before))
      .reverse()
      .slice(0, query.limit);
  }
}
