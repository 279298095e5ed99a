import { UUID } from 'bson';
import type { Doc } from '../bson/bson-types';
import { isOperatorObject } from '../query/query-matcher';
import { canonicalKey } from '../bson/canonical-key';
import { CommandError } from '../errors/command-error';
import { ID_INDEX } from './index-spec';
import { IndexManager } from './index-manager';

/**
 * The documents and indexes of one collection, in insertion (natural) order. Every write goes
 * through here so that the `_id` index and unique indexes are checked before anything changes:
 * a failed write leaves the collection exactly as it was.
 */
export class CollectionStore {
  /** The collection's UUID, as `listCollections` reports it. */
  readonly uuid = new UUID();
  readonly indexes: IndexManager;
  private readonly docs = new Map<string, Doc>();

  constructor(
    readonly db: string,
    readonly name: string,
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

  /** The stored documents with their `_id` keys, in natural order. */
  entries(): IterableIterator<[string, Doc]> {
    return this.docs.entries();
  }

  /**
   * The documents a filter can match: just one when the filter pins `_id` to a plain value, all
   * of them otherwise. Callers still run the full matcher, so this only saves time.
   */
  candidates(filter: Doc | undefined): Doc[] {
    const id = filter?.['_id'];
    if (id !== undefined && !isOperatorObject(id) && !Array.isArray(id) && !(id instanceof RegExp)) {
      const doc = this.docs.get(canonicalKey(id));
      return doc === undefined ? [] : [doc];
    }
    return [...this.docs.values()];
  }

  /** Inserts a document that already has an `_id`; throws DuplicateKey (11000) on any unique conflict. */
  insert(doc: Doc): void {
    const id = doc['_id'];
    if (Array.isArray(id)) throw new CommandError('BadValue', "can't use an array for _id");
    const idKey = canonicalKey(id);
    if (this.docs.has(idKey)) throw this.indexes.duplicateKeyError(ID_INDEX, { _id: id });
    this.indexes.check(doc, idKey);
    this.indexes.add(doc, idKey);
    this.docs.set(idKey, doc);
  }

  /** Replaces a stored document by a new version with the same `_id`, keeping its natural position. */
  replace(current: Doc, next: Doc): void {
    const idKey = canonicalKey(current['_id']);
    this.indexes.check(next, idKey);
    this.indexes.remove(current, idKey);
    this.indexes.add(next, idKey);
    this.docs.set(idKey, next);
  }

  /** Removes a stored document. */
  remove(doc: Doc): void {
    const idKey = canonicalKey(doc['_id']);
    if (!this.docs.has(idKey)) return;
    this.indexes.remove(doc, idKey);
    this.docs.delete(idKey);
  }
}
