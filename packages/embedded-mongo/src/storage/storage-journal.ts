import type { UUID } from 'bson';
import type { Doc } from '../bson/bson-types';
import type { IndexSpec } from './index-spec';

/**
 * Where one collection's changes are recorded. The {@link CollectionStore} calls it after each
 * change has been applied in memory; the persisted mode writes it through to the data file.
 */
export interface CollectionJournal {
  /** A document was inserted or replaced; `seq` is its natural-order position, kept by a replace. */
  documentWritten(seq: number, doc: Doc): void;
  /** The document at natural-order position `seq` was removed. */
  documentRemoved(seq: number): void;
  /** An index was built (its `description` is what is kept; it is rebuilt from the documents on load). */
  indexCreated(spec: IndexSpec): void;
  /** An index was dropped. */
  indexDropped(name: string): void;
  /** The collection was dropped with everything in it. */
  dropped(): void;
}

/**
 * Every change the server makes to its state, in the order it makes them, grouped into commits.
 * The in-memory engine stays the source of every answer; this is only its write-through copy, so
 * a server with a journal answers exactly as one without. {@link InMemoryJournal} records nothing
 * (the in-memory mode); {@link SqliteJournal} keeps it in a SQLite file.
 */
export interface StorageJournal {
  /** A collection came into being; its later changes go to the returned journal. */
  collectionCreated(db: string, name: string, uuid: UUID): CollectionJournal;
  /** A database was dropped with all its collections. */
  databaseDropped(db: string): void;
  /** A retryable write's reply was kept for its session (replacing the session's previous one). */
  sessionRecorded(session: string, txnNumber: bigint, reply: Doc): void;
  /** A session's kept reply was forgotten (ended by the driver, or evicted). */
  sessionForgotten(session: string): void;
  /**
   * Makes every change since the last commit durable, together (one transaction). Called after
   * each command and before its reply is sent: that is the durability rule. Throws when the
   * changes could not be written; the in-memory state is then ahead of the file.
   */
  commit(): void;
  /** Releases the file (and its lock); idempotent. */
  close(): void;
}
