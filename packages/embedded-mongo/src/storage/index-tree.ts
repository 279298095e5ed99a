import BTree from 'sorted-btree';
import { isPlainObject, type Doc } from '../bson/bson-types';
import { canonicalKey } from '../bson/canonical-key';
import { expandedLeafValues, leafValues } from '../query/field-path';
import { indexKeyComparator, type Directions, type IndexKey } from './index-key';

/** True when the path meets an array anywhere on its way (the document makes the index multikey). */
function crossesArray(doc: Doc, parts: readonly string[]): boolean {
  let value: unknown = doc;
  for (const part of parts) {
    if (Array.isArray(value)) return true;
    if (!isPlainObject(value)) return false;
    value = value[part];
  }
  return Array.isArray(value);
}

/**
 * The sorted entries of one index (a B+ tree), kept in step with the collection on every write.
 * A missing field is indexed as null, as MongoDB does. A document whose indexed path crosses an
 * array gets one entry per element combination and is counted, so the planner can refuse the
 * index while any such document is stored: multikey bounds and sort keys follow rules the
 * planner does not model, and correctness comes before speed.
 */
export class IndexTree {
  private readonly tree: BTree<IndexKey, string>;
  private arrayDocuments = 0;

  constructor(
    private readonly parts: readonly (readonly string[])[],
    readonly directions: Directions,
  ) {
    this.tree = new BTree<IndexKey, string>(undefined, indexKeyComparator(directions));
  }

  /** True while some stored document has an array on an indexed path. */
  get multikey(): boolean {
    return this.arrayDocuments > 0;
  }

  /** Number of entries (for tests). */
  get size(): number {
    return this.tree.size;
  }

  private keysOf(doc: Doc, seq: number): { keys: IndexKey[]; multikey: boolean } {
    if (!this.parts.some((p) => crossesArray(doc, p))) {
      const values = this.parts.map((p) => leafValues(doc, p)[0] ?? null);
      return { keys: [{ values, seq }], multikey: false };
    }
    let combos: unknown[][] = [[]];
    for (const p of this.parts) {
      const values = expandedLeafValues(doc, p).map((v) => (v === undefined ? null : v));
      combos = combos.flatMap((prefix) => values.map((v) => [...prefix, v]));
    }
    const distinct = new Map(combos.map((values) => [values.map(canonicalKey).join('|'), values]));
    return { keys: [...distinct.values()].map((values) => ({ values, seq })), multikey: true };
  }

  /** Adds a stored document's entries. */
  add(doc: Doc, idKey: string, seq: number): void {
    const { keys, multikey } = this.keysOf(doc, seq);
    for (const key of keys) this.tree.set(key, idKey);
    if (multikey) this.arrayDocuments++;
  }

  /** Removes the entries {@link add} made for this exact document version. */
  remove(doc: Doc, seq: number): void {
    const { keys, multikey } = this.keysOf(doc, seq);
    for (const key of keys) this.tree.delete(key);
    if (multikey) this.arrayDocuments--;
  }

  /** Entries from `start` to `end` (probe keys, both inside the range's ends), ascending or descending. */
  *range(start: IndexKey, end: IndexKey, reverse: boolean): Generator<[IndexKey, string]> {
    const compare = indexKeyComparator(this.directions);
    if (!reverse) {
      for (const entry of this.tree.entries(start)) {
        if (compare(entry[0], end) > 0) return;
        yield entry;
      }
    } else {
      for (const entry of this.tree.entriesReversed(end)) {
        if (compare(entry[0], start) < 0) return;
        yield entry;
      }
    }
  }
}
