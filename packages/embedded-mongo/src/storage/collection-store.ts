import { UUID } from 'bson';
import type { Doc } from '../bson/bson-types';
import { isOperatorObject, type DocPredicate } from '../query/query-matcher';
import { planQuery, type QueryPlan } from '../query/query-planner';
import type { Sorter } from '../query/sorter';
import { canonicalKey } from '../bson/canonical-key';
import { CommandError } from '../errors/command-error';
import { ID_INDEX, type IndexSpec } from './index-spec';
import { IndexManager, type StoredRecord } from './index-manager';
import { readIndex } from './index-reader';
import { IN_MEMORY_COLLECTION_JOURNAL } from './in-memory-journal';
import type { CollectionJournal } from './storage-journal';

/** How {@link CollectionStore.select} reads: the sort the caller applies and how many documents it needs. */
export interface SelectOptions {
  readonly sorter?: Sorter | undefined;
  /** The caller uses only the first `want` documents (skip + limit); undefined means all. */
  readonly want?: number | undefined;
  /** False forces a collection scan: what the equivalence tests compare the indexes with. */
  readonly useIndexes?: boolean;
}

/** How the last query was answered and how many documents queries have read: an `explain` for tests. */
export interface QueryStats {
  /** `COLLSCAN`, `IDHACK` (`_id` pinned) or `IXSCAN <index name>`. */
  readonly lastPlan: string;
  /** Index entries and documents read by every query since the collection was created. */
  readonly examined: number;
}

const SCAN: QueryPlan = { kind: 'scan' };

/**
 * The documents and indexes of one collection, in insertion (natural) order. Every write goes
 * through here so that the `_id` index and unique indexes are checked before anything changes:
 * a failed write leaves the collection exactly as it was.
 */
export class CollectionStore {
  readonly indexes: IndexManager;
  private readonly docs = new Map<string, StoredRecord>();
  /** Natural order: a replaced document keeps its number, an inserted one takes the next. */
  private nextSeq = 0;
  private stats: QueryStats = { lastPlan: 'COLLSCAN', examined: 0 };

  /**
   * @param journal where every change is recorded after it is applied (the persisted mode's write-through)
   * @param uuid the collection's UUID, as `listCollections` reports it; kept across restarts when persisted
   */
  constructor(
    readonly db: string,
    readonly name: string,
    readonly journal: CollectionJournal = IN_MEMORY_COLLECTION_JOURNAL,
    readonly uuid: UUID = new UUID(),
  ) {
    this.indexes = new IndexManager(this.ns);
  }

  /** `<db>.<collection>`, as MongoDB writes namespaces in replies and messages. */
  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  /** Number of stored documents. */
  get size(): number {
    return this.docs.size;
  }

  /** How queries were answered (see {@link QueryStats}). */
  get queryStats(): QueryStats {
    return this.stats;
  }

  /** The stored documents with their `_id` keys and sequence numbers, in natural order. */
  records(): IterableIterator<StoredRecord> {
    return this.docs.values();
  }

  private pinnedById(filter: Doc | undefined): StoredRecord[] | undefined {
    const id = filter?.['_id'];
    if (id === undefined || isOperatorObject(id) || Array.isArray(id) || id instanceof RegExp) return undefined;
    const record = this.docs.get(canonicalKey(id));
    return record === undefined ? [] : [record];
  }

  /**
   * The documents matching a filter, in the order a collection scan followed by the stable sort
   * gives (natural order without a sort; ties in natural order), through an index when the
   * planner finds one (see {@link planQuery}). With `want`, only the first `want` documents are
   * guaranteed: more may follow. `matches` is the compiled `filter`.
   */
  select(filter: Doc | undefined, matches: DocPredicate, options: SelectOptions = {}): Doc[] {
    const { sorter, want, useIndexes = true } = options;
    let examined = this.stats.examined;
    let found = this.pinnedById(filter);
    let lastPlan = 'IDHACK';
    if (found !== undefined) {
      examined += found.length;
      found = found.filter((r) => matches(r.doc));
    } else {
      const plan = useIndexes ? planQuery(filter, sorter?.fields ?? [], this.indexes.plannable()) : SCAN;
      const tree = plan.kind === 'index' ? this.indexes.tree(plan.index) : undefined;
      if (plan.kind === 'index' && tree !== undefined) {
        lastPlan = `IXSCAN ${plan.index}`;
        found = readIndex(tree, plan, (idKey) => this.docs.get(idKey), matches, want, () => examined++);
        found.sort((a, b) => a.seq - b.seq);
      } else {
        lastPlan = 'COLLSCAN';
        examined += this.docs.size;
        found = [...this.docs.values()].filter((r) => matches(r.doc));
      }
    }
    this.stats = { lastPlan, examined };
    const docs = found.map((r) => r.doc);
    return sorter ? sorter.sort(docs) : docs;
  }

  /** Inserts a document that already has an `_id`; throws DuplicateKey (11000) on any unique conflict. */
  insert(doc: Doc): void {
    const id = doc['_id'];
    if (Array.isArray(id)) throw new CommandError('BadValue', "can't use an array for _id");
    const idKey = canonicalKey(id);
    if (this.docs.has(idKey)) throw this.indexes.duplicateKeyError(ID_INDEX, { _id: id });
    this.indexes.check(doc, idKey);
    const record = { idKey, doc, seq: this.nextSeq++ };
    this.indexes.add(record);
    this.docs.set(idKey, record);
    this.journal.documentWritten(record.seq, doc);
  }

  /** Replaces a stored document by a new version with the same `_id`, keeping its natural position. */
  replace(current: Doc, next: Doc): void {
    const idKey = canonicalKey(current['_id']);
    const stored = this.docs.get(idKey);
    if (stored === undefined) return;
    this.indexes.check(next, idKey, stored.doc);
    const record = { idKey, doc: next, seq: stored.seq };
    this.indexes.replace(stored, record);
    this.docs.set(idKey, record);
    this.journal.documentWritten(record.seq, next);
  }

  /** Removes a stored document. */
  remove(doc: Doc): void {
    const idKey = canonicalKey(doc['_id']);
    const stored = this.docs.get(idKey);
    if (stored === undefined) return;
    this.indexes.remove(stored);
    this.docs.delete(idKey);
    this.journal.documentRemoved(stored.seq);
  }

  /**
   * Builds an index over the stored documents and records it; throws (building nothing) as
   * {@link IndexManager.create} does.
   */
  createIndex(spec: IndexSpec): void {
    this.indexes.create(spec, this.records());
    this.journal.indexCreated(spec);
  }

  /** Drops an index by name and records it. */
  dropIndex(name: string): void {
    this.indexes.drop(name);
    this.journal.indexDropped(name);
  }

  /**
   * Puts back a document read from the data file at its natural-order position, without
   * recording it again. Documents come first, in natural order; indexes are then built over them
   * with {@link restoreIndex}, so the indexes are exactly a rebuild. Throws DuplicateKey for an
   * `_id` already restored: a file that holds two is not one this server wrote.
   */
  restoreDocument(seq: number, doc: Doc): void {
    const idKey = canonicalKey(doc['_id']);
    if (this.docs.has(idKey)) throw this.indexes.duplicateKeyError(ID_INDEX, { _id: doc['_id'] });
    const record = { idKey, doc, seq };
    this.indexes.add(record);
    this.docs.set(idKey, record);
    this.nextSeq = Math.max(this.nextSeq, seq + 1);
  }

  /** Builds an index read from the data file over the restored documents, without recording it again. */
  restoreIndex(spec: IndexSpec): void {
    this.indexes.create(spec, this.records(), true);
  }
}
