import { calculateObjectSize } from 'bson';
import type { ProcessDocument } from '@sas/contracts';

/** How many documents {@link RecentDocuments} keeps by default. */
export const RECENT_DOCUMENTS_COUNT = 1000;

/**
 * How many bytes of documents (their BSON size) {@link RecentDocuments} keeps by default. A
 * 3-step order with a small payload is about 1.5 KB, so the count binds first; an order near the
 * 64 KiB payload limit is 40 times that, and without this bound 1000 of them held some 60 MB of
 * a scheduler's heap (decision 58).
 */
export const RECENT_DOCUMENTS_BYTES = 4 * 1024 * 1024;

/**
 * The documents this engine committed last, by process id, least recently used first out. The
 * next input of a process often reaches the engine that committed its last transition (the reply
 * to the step it dispatched), which can then skip reading the process back: the copy is only a
 * guess, because the commit is conditional on its revision and a copy that no longer holds is
 * read again (see `ProcessEngine.apply`). Bounded by count and by bytes, whichever binds first:
 * a copy evicted early only costs the read it would have saved.
 */
export class RecentDocuments {
  private readonly docs = new Map<string, { doc: ProcessDocument; bytes: number }>();
  private totalBytes = 0;

  /**
   * @param capacity most documents kept; 0 keeps none
   * @param maxBytes most bytes kept, summing each document's BSON size (what the driver would send)
   */
  constructor(
    private readonly capacity: number = RECENT_DOCUMENTS_COUNT,
    private readonly maxBytes: number = RECENT_DOCUMENTS_BYTES,
  ) {}

  /** The copy of the process, if any; it is removed, so a copy is used at most once. */
  take(processId: string): ProcessDocument | undefined {
    const kept = this.docs.get(processId);
    if (!kept) return undefined;
    this.forget(processId, kept.bytes);
    return kept.doc;
  }

  /** Keeps the committed document, unless the process is finished (nothing more is expected of it). */
  keep(doc: ProcessDocument): void {
    const previous = this.docs.get(doc._id);
    if (previous) this.forget(doc._id, previous.bytes);
    if (this.capacity <= 0 || doc.deleteTime !== null) return;
    const bytes = calculateObjectSize(doc);
    if (bytes > this.maxBytes) return;
    this.docs.set(doc._id, { doc, bytes });
    this.totalBytes += bytes;
    for (const [oldest, kept] of this.docs) {
      if (this.docs.size <= this.capacity && this.totalBytes <= this.maxBytes) break;
      this.forget(oldest, kept.bytes);
    }
  }

  size(): number {
    return this.docs.size;
  }

  /** BSON bytes of the documents kept. */
  bytes(): number {
    return this.totalBytes;
  }

  private forget(processId: string, bytes: number): void {
    this.docs.delete(processId);
    this.totalBytes -= bytes;
  }
}
