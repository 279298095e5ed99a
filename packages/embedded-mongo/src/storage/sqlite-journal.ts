import type { UUID } from 'bson';
import type { Doc } from '../bson/bson-types';
import { DataFileError } from '../errors/data-file-error';
import { errorMessage } from '../errors/error-message';
import { encodeDocument } from '../wire/bson-codec';
import type { IndexSpec } from './index-spec';
import type { SqliteDatabase, SqliteStatement } from './sqlite-data-file';
import type { CollectionJournal, StorageJournal } from './storage-journal';

const SQL = {
  insertCollection: 'INSERT INTO collections (db, name, uuid) VALUES (?, ?, ?)',
  dropCollectionDocuments: 'DELETE FROM documents WHERE coll = ?',
  dropCollectionIndexes: 'DELETE FROM indexes WHERE coll = ?',
  dropCollection: 'DELETE FROM collections WHERE id = ?',
  dropDatabaseDocuments: 'DELETE FROM documents WHERE coll IN (SELECT id FROM collections WHERE db = ?)',
  dropDatabaseIndexes: 'DELETE FROM indexes WHERE coll IN (SELECT id FROM collections WHERE db = ?)',
  dropDatabase: 'DELETE FROM collections WHERE db = ?',
  putDocument: 'INSERT OR REPLACE INTO documents (coll, seq, doc) VALUES (?, ?, ?)',
  removeDocument: 'DELETE FROM documents WHERE coll = ? AND seq = ?',
  // REPLACE gives the row a new rowid, larger than every other: rowid order is creation order.
  putIndex: 'INSERT OR REPLACE INTO indexes (coll, name, spec) VALUES (?, ?, ?)',
  dropIndex: 'DELETE FROM indexes WHERE coll = ? AND name = ?',
  // Same trick: rowid order is the order of last use, which the bounded log evicts by.
  putSession: 'INSERT OR REPLACE INTO sessions (session, txn, reply) VALUES (?, ?, ?)',
  dropSession: 'DELETE FROM sessions WHERE session = ?',
} as const;

type Statements = { readonly [K in keyof typeof SQL]: SqliteStatement };

/**
 * The persisted mode's journal: writes every change through to the SQLite data file (see
 * {@link openDataFile}), inside a transaction opened by the first change after a commit and
 * committed by {@link commit}, so a command's changes reach the file together or not at all.
 * Documents, index descriptions and replies are stored as BSON.
 *
 * A failed write does not throw into the command that caused it (its in-memory change is already
 * made): the first failure is kept and thrown by the next {@link commit}, after rolling back, so
 * the server stops before acknowledging anything the file does not hold.
 */
export class SqliteJournal implements StorageJournal {
  private readonly statements: Statements;
  private inTransaction = false;
  private failure: unknown;
  private closed = false;

  constructor(
    private readonly database: SqliteDatabase,
    /** The data file, named in errors. */
    readonly file: string,
  ) {
    this.statements = Object.fromEntries(
      Object.entries(SQL).map(([name, sql]) => [name, database.prepare(sql)]),
    ) as unknown as Statements;
  }

  /** Runs one change inside the open transaction (opening it first); keeps the first failure for {@link commit}. */
  private write(change: (s: Statements) => void): void {
    if (this.failure !== undefined) return;
    try {
      if (this.closed) throw new Error('the data file is closed');
      if (!this.inTransaction) {
        this.database.exec('BEGIN');
        this.inTransaction = true;
      }
      change(this.statements);
    } catch (error) {
      this.failure = error;
    }
  }

  collectionCreated(db: string, name: string, uuid: UUID): CollectionJournal {
    let id = -1;
    this.write((s) => {
      id = Number(s.insertCollection.run(db, name, uuid.buffer).lastInsertRowid);
    });
    return this.collection(id);
  }

  /** The journal of the collection stored under `id` (the `collections` row). */
  collection(id: number): CollectionJournal {
    return {
      documentWritten: (seq: number, doc: Doc) => this.write((s) => s.putDocument.run(id, seq, encodeDocument(doc))),
      documentRemoved: (seq: number) => this.write((s) => s.removeDocument.run(id, seq)),
      indexCreated: (spec: IndexSpec) =>
        this.write((s) => s.putIndex.run(id, spec.name, encodeDocument(spec.description))),
      indexDropped: (name: string) => this.write((s) => s.dropIndex.run(id, name)),
      dropped: () =>
        this.write((s) => {
          s.dropCollectionDocuments.run(id);
          s.dropCollectionIndexes.run(id);
          s.dropCollection.run(id);
        }),
    };
  }

  databaseDropped(db: string): void {
    this.write((s) => {
      s.dropDatabaseDocuments.run(db);
      s.dropDatabaseIndexes.run(db);
      s.dropDatabase.run(db);
    });
  }

  sessionRecorded(session: string, txnNumber: bigint, reply: Doc): void {
    this.write((s) => s.putSession.run(session, txnNumber.toString(), encodeDocument(reply)));
  }

  sessionForgotten(session: string): void {
    this.write((s) => s.dropSession.run(session));
  }

  commit(): void {
    if (this.failure === undefined && !this.inTransaction) return;
    try {
      if (this.failure !== undefined) throw this.failure;
      this.inTransaction = false;
      this.database.exec('COMMIT');
    } catch (error) {
      this.failure ??= error;
      this.rollback();
      const reason = errorMessage(error);
      throw new DataFileError(
        this.file,
        `could not write to ${this.file} (${reason}); the last change is not saved and the server stops: free disk space or fix the file's permissions, then restart it`,
        { cause: error },
      );
    }
  }

  private rollback(): void {
    this.inTransaction = false;
    try {
      this.database.exec('ROLLBACK');
    } catch {
      // No transaction left to roll back (SQLite already rolled it back): nothing to undo.
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.inTransaction) this.rollback();
    this.database.close();
  }
}
