import { UUID } from 'bson';
import { DataFileError } from '../errors/data-file-error';
import { RetryableWriteLog } from '../replication/retryable-write-log';
import { decodeDocument } from '../wire/bson-codec';
import { Catalog } from './catalog';
import { parseIndexSpec } from './index-spec';
import { openDataFile, unreadable, type SyncMode } from './sqlite-data-file';
import { SqliteJournal } from './sqlite-journal';

/** The state of a persisted server, read back from its data file and journaled from now on. */
export interface PersistedState {
  readonly catalog: Catalog;
  readonly retryableWrites: RetryableWriteLog;
  readonly journal: SqliteJournal;
}

function bytes(value: unknown): Buffer {
  if (!(value instanceof Uint8Array)) throw new Error(`expected a BLOB, found ${typeof value}`);
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

function load(journal: SqliteJournal, database: ReturnType<typeof openDataFile>['database'], capacity: number): PersistedState {
  const catalog = new Catalog(journal);
  const documents = database.prepare('SELECT seq, doc FROM documents WHERE coll = ? ORDER BY seq');
  const indexes = database.prepare('SELECT spec FROM indexes WHERE coll = ? ORDER BY rowid');
  for (const row of database.prepare('SELECT id, db, name, uuid FROM collections ORDER BY id').iterate()) {
    const id = Number(row['id']);
    const collection = catalog.restore(String(row['db']), String(row['name']), new UUID(bytes(row['uuid'])), journal.collection(id));
    // Documents first, in natural order, then every index built over them: the indexes are a
    // rebuild, never a copy that could disagree with the documents.
    for (const doc of documents.iterate(id)) collection.restoreDocument(Number(doc['seq']), decodeDocument(bytes(doc['doc'])));
    for (const index of indexes.iterate(id)) collection.restoreIndex(parseIndexSpec(decodeDocument(bytes(index['spec']))));
  }
  const retryableWrites = new RetryableWriteLog(capacity, journal);
  for (const row of database.prepare('SELECT session, txn, reply FROM sessions ORDER BY rowid').iterate()) {
    retryableWrites.restore(String(row['session']), BigInt(String(row['txn'])), decodeDocument(bytes(row['reply'])));
  }
  return { catalog, retryableWrites, journal };
}

/**
 * Opens `<dataDir>/embedded-mongo.sqlite` (see {@link openDataFile}) and reads everything back:
 * collections in creation order with their UUIDs, their documents in natural order with their
 * positions, their indexes rebuilt from those documents, and the retryable-write replies. Throws
 * {@link DataFileError} naming the file when any of it cannot be read.
 */
export function loadDataFile(dataDir: string, sync: SyncMode, retryableWriteCapacity = 10_000): PersistedState {
  const { database, file } = openDataFile(dataDir, sync);
  const journal = new SqliteJournal(database, file);
  try {
    return load(journal, database, retryableWriteCapacity);
  } catch (error) {
    journal.close();
    throw new DataFileError(file, unreadable(file, error), { cause: error });
  }
}
