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
    const bytes = bsonSize(doc);
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

/**
 * The BSON size of `doc`, as `calculateObjectSize` of the `bson` package counts it (its defaults:
 * undefined fields skipped, functions not serialised), walking only what a process document holds:
 * plain objects, arrays, strings, numbers, booleans, null and Dates. It costs about a third of
 * `calculateObjectSize`, which looks up `toBSON` and `_bsontype` on every value and asks `Buffer`
 * for the byte length of every key; it runs on every commit. Anything else (a BSON class, a Buffer,
 * a bigint, a Date of another realm...) is measured by `calculateObjectSize` itself.
 */
export function bsonSize(doc: object): number {
  const size = objectSize(doc as Record<string, unknown>);
  return size >= 0 ? size : calculateObjectSize(doc);
}

/** Not a value {@link bsonSize} measures itself. */
const OTHER = -1;

function objectSize(object: Record<string, unknown>): number {
  if (typeof object['toBSON'] === 'function' || object['_bsontype'] !== undefined) return OTHER;
  let total = 4 + 1;
  for (const key of Object.keys(object)) {
    const value = object[key];
    // calculateObjectSize's default: an undefined field is not serialised.
    if (value === undefined) continue;
    const element = valueSize(value);
    if (element < 0) return OTHER;
    total += 1 + utf8Length(key) + 1 + element;
  }
  return total;
}

function arraySize(array: readonly unknown[]): number {
  let total = 4 + 1;
  for (let i = 0; i < array.length; i++) {
    const value = array[i];
    // In an array an undefined element is kept (as null), with its index as the name.
    const element = value === undefined ? 0 : valueSize(value);
    if (element < 0) return OTHER;
    total += 1 + indexLength(i) + 1 + element;
  }
  return total;
}

/** Bytes of a value after its type byte and name, or {@link OTHER}. */
function valueSize(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return 4 + utf8Length(value) + 1;
    case 'number':
      // int32 when it is a whole number in range, else a double (as `bson` decides).
      return Math.floor(value) === value && value >= -2147483648 && value <= 2147483647 ? 4 : 8;
    case 'boolean':
      return 1;
    case 'object': {
      if (value === null) return 0;
      if (Array.isArray(value)) return arraySize(value);
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto === Object.prototype || proto === null) return objectSize(value as Record<string, unknown>);
      if (proto === Date.prototype && typeof (value as { toBSON?: unknown }).toBSON !== 'function') return 8;
      return OTHER;
    }
    default:
      return OTHER;
  }
}

/** UTF-8 bytes of `text`: its length when it is ASCII (keys and most values), else Buffer's count. */
function utf8Length(text: string): number {
  if (text.length > 64) return Buffer.byteLength(text, 'utf8');
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return Buffer.byteLength(text, 'utf8');
  return text.length;
}

function indexLength(i: number): number {
  return i < 10 ? 1 : i < 100 ? 2 : String(i).length;
}

