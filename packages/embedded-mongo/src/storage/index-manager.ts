import { isPlainObject, toNumber, type Doc } from '../bson/bson-types';
import { canonicalKey } from '../bson/canonical-key';
import { formatDocument } from '../bson/format-value';
import { CommandError } from '../errors/command-error';
import { expandedLeafValues, leafValues } from '../query/field-path';
import { compileFilter, type DocPredicate } from '../query/query-matcher';
import type { PlannableIndex } from '../query/query-planner';
import { ID_INDEX, type IndexSpec } from './index-spec';
import { IndexTree } from './index-tree';

interface IndexKey {
  readonly canonical: string;
  readonly keyValue: Doc;
}

interface IndexEntry {
  readonly spec: IndexSpec;
  readonly applies: DocPredicate;
  /** Unique indexes only: canonical key → the owning document's `_id` key. */
  readonly owners: Map<string, string> | undefined;
  /** The sorted entries queries read; none for sparse and partial indexes, which the planner never uses. */
  readonly tree: IndexTree | undefined;
}

/** A stored document with its `_id` key and natural-order sequence number. */
export interface StoredRecord {
  readonly idKey: string;
  readonly doc: Doc;
  readonly seq: number;
}

/**
 * The indexes of one collection. Unique indexes keep a key map (that is what enforces
 * uniqueness); every index that is neither sparse nor partial keeps a sorted {@link IndexTree}
 * that the query planner reads. Keys follow MongoDB: a missing field indexes as null, array
 * values index each element (multikey), two array fields in one unique compound key are
 * refused, sparse and partial indexes skip the documents they do not cover.
 */
export class IndexManager {
  private readonly entries = new Map<string, IndexEntry>();

  constructor(private readonly ns: string) {}

  /** Every index, `_id_` first, in creation order. */
  list(): IndexSpec[] {
    return [ID_INDEX, ...[...this.entries.values()].map((e) => e.spec)];
  }

  /** The index with this name, if any (including `_id_`). */
  get(name: string): IndexSpec | undefined {
    return name === ID_INDEX.name ? ID_INDEX : this.entries.get(name)?.spec;
  }

  /** Indexes with `expireAfterSeconds`, for the TTL monitor. */
  ttlIndexes(): IndexSpec[] {
    return [...this.entries.values()].map((e) => e.spec).filter((s) => s.expireAfterSeconds !== undefined);
  }

  /** The indexes the planner may read now: not sparse, not partial, not multikey. */
  plannable(): PlannableIndex[] {
    const out: PlannableIndex[] = [];
    for (const { spec, tree } of this.entries.values()) {
      if (tree === undefined || tree.multikey) continue;
      out.push({ name: spec.name, paths: spec.fields.map((f) => f.path), directions: tree.directions, unique: spec.unique });
    }
    return out;
  }

  /** The sorted entries of an index, if it keeps them. */
  tree(name: string): IndexTree | undefined {
    return this.entries.get(name)?.tree;
  }

  /** True when the partial filter (if any) lets this index cover the document. */
  covers(spec: IndexSpec, doc: Doc): boolean {
    return this.entries.get(spec.name)?.applies(doc) ?? true;
  }

  private keysOf(entry: IndexEntry, doc: Doc): IndexKey[] {
    const { spec } = entry;
    if (!entry.applies(doc)) return [];
    if (spec.sparse && spec.fields.every((f) => leafValues(doc, f.parts).every((v) => v === undefined)))
      return [];
    let arrays = 0;
    const perField = spec.fields.map((f) => {
      const raw = leafValues(doc, f.parts);
      if (raw.some(Array.isArray)) arrays++;
      return expandedLeafValues(doc, f.parts).map((v) => (v === undefined ? null : v));
    });
    if (arrays > 1) {
      throw new CommandError(
        'CannotIndexParallelArrays',
        `cannot index parallel arrays [${spec.fields.map((f) => f.path).join('] [')}]`,
      );
    }
    let combos: unknown[][] = [[]];
    for (const values of perField) combos = combos.flatMap((prefix) => values.map((v) => [...prefix, v]));
    const seen = new Map<string, IndexKey>();
    for (const combo of combos) {
      const canonical = combo.map(canonicalKey).join('|');
      const keyValue: Doc = {};
      spec.fields.forEach((f, i) => (keyValue[f.path] = combo[i]));
      seen.set(canonical, { canonical, keyValue });
    }
    return [...seen.values()];
  }

  /** The E11000 error MongoDB raises for a key already taken, with `keyPattern` and `keyValue`. */
  duplicateKeyError(spec: IndexSpec, keyValue: Doc): CommandError {
    return new CommandError(
      'DuplicateKey',
      `E11000 duplicate key error collection: ${this.ns} index: ${spec.name} dup key: ${formatDocument(keyValue)}`,
      { keyPattern: spec.key, keyValue },
    );
  }

  /**
   * Throws DuplicateKey if `doc` (whose `_id` key is `idKey`) would take a unique key owned by
   * another document. With `previous` (the stored version `doc` replaces), an index whose keys are
   * the same in both is skipped: this document owns them already.
   */
  check(doc: Doc, idKey: string, previous?: Doc): void {
    for (const entry of this.entries.values()) {
      if (entry.owners === undefined) continue;
      if (previous !== undefined && keysSurely(entry.spec, previous, doc)) continue;
      for (const key of this.keysOf(entry, doc)) {
        const owner = entry.owners.get(key.canonical);
        if (owner !== undefined && owner !== idKey) throw this.duplicateKeyError(entry.spec, key.keyValue);
      }
    }
  }

  /** Records a stored document's keys; call after {@link check} passed. */
  add({ idKey, doc, seq }: StoredRecord): void {
    for (const entry of this.entries.values()) {
      entry.tree?.add(doc, idKey, seq);
      if (entry.owners === undefined) continue;
      for (const key of this.keysOf(entry, doc)) entry.owners.set(key.canonical, idKey);
    }
  }

  /**
   * Moves a stored document's keys to its next version (same `_id` key and position). An index
   * whose indexed values are identical in both versions keeps its entries as they are: a commit
   * rewrites the whole process document but changes the keys of only some of its eight indexes.
   * Sparse and partial indexes, whose keys also depend on other fields, are always redone.
   */
  replace(stored: StoredRecord, next: StoredRecord): void {
    for (const entry of this.entries.values()) {
      if (keysSurely(entry.spec, stored.doc, next.doc)) continue;
      entry.tree?.remove(stored.doc, stored.seq);
      entry.tree?.add(next.doc, next.idKey, next.seq);
      if (entry.owners === undefined) continue;
      for (const key of this.keysOf(entry, stored.doc)) {
        if (entry.owners.get(key.canonical) === stored.idKey) entry.owners.delete(key.canonical);
      }
      for (const key of this.keysOf(entry, next.doc)) entry.owners.set(key.canonical, next.idKey);
    }
  }

  /** Forgets a document's keys (before removal or before re-adding its new version). */
  remove({ idKey, doc, seq }: StoredRecord): void {
    for (const entry of this.entries.values()) {
      entry.tree?.remove(doc, seq);
      if (entry.owners === undefined) continue;
      for (const key of this.keysOf(entry, doc)) {
        if (entry.owners.get(key.canonical) === idKey) entry.owners.delete(key.canonical);
      }
    }
  }

  /**
   * Builds a new index over the existing documents; a unique index over duplicates fails with
   * 11000 and leaves nothing behind, as MongoDB's index build does.
   *
   * With `restoring` (the persisted mode reading its file back), a non-unique index is built as
   * the writes left it, without the parallel-arrays check a new build makes: inserts do not make
   * that check for non-unique indexes, so such documents may be stored, and a restart must not
   * refuse a state the server accepted.
   */
  create(spec: IndexSpec, records: Iterable<StoredRecord>, restoring = false): void {
    const applies = spec.partialFilterExpression ? compileFilter(spec.partialFilterExpression) : () => true;
    const tree =
      spec.sparse || spec.partialFilterExpression
        ? undefined
        : new IndexTree(
            spec.fields.map((f) => f.parts),
            spec.fields.map((f) => (toNumber(spec.key[f.path]) < 0 ? -1 : 1)),
          );
    const entry: IndexEntry = { spec, applies, owners: spec.unique ? new Map() : undefined, tree };
    for (const { idKey, doc, seq } of records) {
      tree?.add(doc, idKey, seq);
      if (restoring && entry.owners === undefined) continue;
      for (const key of this.keysOf(entry, doc)) {
        const owner = entry.owners?.get(key.canonical);
        if (owner !== undefined && owner !== idKey) {
          const dup = this.duplicateKeyError(spec, key.keyValue);
          throw new CommandError(
            'DuplicateKey',
            `Index build failed: ${this.ns} :: caused by :: ${dup.message}`,
            dup.extra,
          );
        }
        entry.owners?.set(key.canonical, idKey);
      }
    }
    this.entries.set(spec.name, entry);
  }

  /** Removes an index by name; the `_id_` index cannot be dropped. */
  drop(name: string): void {
    this.entries.delete(name);
  }
}

/**
 * True when `a` and `b` certainly give `spec` the same keys: neither sparse nor partial, and on
 * every indexed path, reached without meeting an array in either document, the same primitive (or
 * a date of the same time). Anything else (sub-documents, arrays on the way or at the end, BSON
 * value classes) counts as changed, so a `false` only costs the full removal and re-insertion.
 */
function keysSurely(spec: IndexSpec, a: Doc, b: Doc): boolean {
  if (spec.sparse || spec.partialFilterExpression) return false;
  for (const field of spec.fields) {
    if (!identicalScalar(scalarAt(a, field.parts), scalarAt(b, field.parts))) return false;
  }
  return true;
}

/** Stands for a path that meets an array: such a document's keys (and whether it is multikey) are always redone. */
const CROSSES_ARRAY = Symbol('crosses an array');

/** The one value a path reaches without meeting an array (undefined when missing), or {@link CROSSES_ARRAY}. */
function scalarAt(doc: Doc, parts: readonly string[]): unknown {
  let value: unknown = doc;
  for (const part of parts) {
    if (Array.isArray(value)) return CROSSES_ARRAY;
    if (!isPlainObject(value)) return undefined;
    value = value[part];
  }
  return Array.isArray(value) ? CROSSES_ARRAY : value;
}

function identicalScalar(x: unknown, y: unknown): boolean {
  if (x === CROSSES_ARRAY || y === CROSSES_ARRAY) return false;
  if (x instanceof Date && y instanceof Date) return x.getTime() === y.getTime();
  if (typeof x === 'object' && x !== null) return false;
  return Object.is(x, y);
}
