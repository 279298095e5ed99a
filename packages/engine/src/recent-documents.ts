import type { ProcessDocument } from '@sas/contracts';

/**
 * The documents this engine committed last, by process id, least recently used first out. The
 * next input of a process often reaches the engine that committed its last transition (the reply
 * to the step it dispatched), which can then skip reading the process back: the copy is only a
 * guess, because the commit is conditional on its revision and a copy that no longer holds is
 * read again (see `ProcessEngine.apply`).
 */
export class RecentDocuments {
  private readonly docs = new Map<string, ProcessDocument>();

  constructor(private readonly capacity: number) {}

  /** The copy of the process, if any; it is removed, so a copy is used at most once. */
  take(processId: string): ProcessDocument | undefined {
    const doc = this.docs.get(processId);
    this.docs.delete(processId);
    return doc;
  }

  /** Keeps the committed document, unless the process is finished (nothing more is expected of it). */
  keep(doc: ProcessDocument): void {
    this.docs.delete(doc._id);
    if (this.capacity <= 0 || doc.deleteTime !== null) return;
    this.docs.set(doc._id, doc);
    if (this.docs.size > this.capacity) {
      const oldest = this.docs.keys().next().value;
      if (oldest !== undefined) this.docs.delete(oldest);
    }
  }

  size(): number {
    return this.docs.size;
  }
}
