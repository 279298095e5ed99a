import { UUID } from 'bson';
import { CommandError } from '../errors/command-error';
import { CollectionStore } from './collection-store';
import { IN_MEMORY_JOURNAL } from './in-memory-journal';
import type { CollectionJournal, StorageJournal } from './storage-journal';

function validateDbName(db: string): void {
  if (db === '' || /[/\\. "$\0]/.test(db) || db.length >= 64) {
    throw new CommandError('InvalidNamespace', `Invalid database name: '${db}'`);
  }
}

/** Validates a collection name argument and returns it; MongoDB's rules (non-empty string, no `$`, no NUL, no leading dot). */
export function validateCollectionName(db: string, name: unknown): string {
  if (typeof name !== 'string')
    throw new CommandError('InvalidNamespace', `collection name has invalid type ${typeof name}`);
  if (name === '' || name.includes('$') || name.includes('\0') || name.startsWith('.')) {
    throw new CommandError('InvalidNamespace', `Invalid namespace specified '${db}.${name}'`);
  }
  return name;
}

/**
 * Every database and collection the server holds, in memory. Databases and collections come
 * into being on first write and disappear when dropped, as in MongoDB; a database with no
 * collections does not exist. Each of these changes is recorded in the journal (nothing is,
 * in the in-memory mode).
 */
export class Catalog {
  private readonly dbs = new Map<string, Map<string, CollectionStore>>();

  constructor(private readonly journal: StorageJournal = IN_MEMORY_JOURNAL) {}

  private collectionsOf(db: string): Map<string, CollectionStore> {
    let collections = this.dbs.get(db);
    if (collections === undefined) {
      collections = new Map();
      this.dbs.set(db, collections);
    }
    return collections;
  }

  /** The collection, or undefined when it does not exist. */
  get(db: string, name: string): CollectionStore | undefined {
    return this.dbs.get(db)?.get(name);
  }

  /** The collection, created implicitly when missing (MongoDB's behaviour on first write). */
  ensure(db: string, name: string): { collection: CollectionStore; created: boolean } {
    validateDbName(db);
    validateCollectionName(db, name);
    const collections = this.collectionsOf(db);
    const existing = collections.get(name);
    if (existing !== undefined) return { collection: existing, created: false };
    const uuid = new UUID();
    const collection = new CollectionStore(db, name, this.journal.collectionCreated(db, name, uuid), uuid);
    collections.set(name, collection);
    return { collection, created: true };
  }

  /**
   * Puts back a collection read from the data file, without recording it again (see
   * {@link CollectionStore.restoreDocument} for its documents and indexes). Collections are
   * restored in creation order, which `listCollections` keeps.
   */
  restore(db: string, name: string, uuid: UUID, journal: CollectionJournal): CollectionStore {
    const collections = this.collectionsOf(db);
    if (collections.has(name)) throw new Error(`the collection ${db}.${name} is in the data file twice`);
    const collection = new CollectionStore(db, name, journal, uuid);
    collections.set(name, collection);
    return collection;
  }

  /** Drops a collection; returns what was dropped, if anything. */
  drop(db: string, name: string): CollectionStore | undefined {
    const collections = this.dbs.get(db);
    const existing = collections?.get(name);
    collections?.delete(name);
    if (collections?.size === 0) this.dbs.delete(db);
    existing?.journal.dropped();
    return existing;
  }

  /** Drops a database and all its collections. */
  dropDatabase(db: string): void {
    if (this.dbs.delete(db)) this.journal.databaseDropped(db);
  }

  /** The collections of one database, in creation order. */
  list(db: string): CollectionStore[] {
    return [...(this.dbs.get(db)?.values() ?? [])];
  }

  /** Every collection of every database (for the TTL monitor). */
  *all(): IterableIterator<CollectionStore> {
    for (const collections of this.dbs.values()) yield* collections.values();
  }
}
