import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DataFileError } from '../errors/data-file-error';
import { errorMessage } from '../errors/error-message';

/** A value SQLite stores or returns (BLOBs come back as Uint8Array). */
type SqliteValue = null | number | bigint | string | Uint8Array;

/** The part of `node:sqlite`'s `StatementSync` this server uses (typed here: `@types/node` 20 has none). */
export interface SqliteStatement {
  run(...params: SqliteValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: SqliteValue[]): Record<string, SqliteValue> | undefined;
  iterate(...params: SqliteValue[]): IterableIterator<Record<string, SqliteValue>>;
}

/** The part of `node:sqlite`'s `DatabaseSync` this server uses. */
export interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  close(): void;
}

/**
 * When a commit is on disk: `normal` (the default) once it is in the write-ahead log, which
 * survives a crash of the process but not of the machine; `full` once it is fsynced, which
 * survives a power loss (MongoDB's `j: true`). SQLite's `PRAGMA synchronous` in WAL mode.
 */
export type SyncMode = 'normal' | 'full';

/** The file name inside `dataDir`. */
export const DATA_FILE_NAME = 'embedded-mongo.sqlite';

/** What this version writes in `meta.format`; a file of another format is refused, not guessed at. */
const FORMAT = '1';

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE collections (id INTEGER PRIMARY KEY, db TEXT NOT NULL, name TEXT NOT NULL, uuid BLOB NOT NULL, UNIQUE (db, name));
CREATE TABLE documents (coll INTEGER NOT NULL, seq INTEGER NOT NULL, doc BLOB NOT NULL, PRIMARY KEY (coll, seq)) WITHOUT ROWID;
CREATE TABLE indexes (coll INTEGER NOT NULL, name TEXT NOT NULL, spec BLOB NOT NULL, UNIQUE (coll, name));
CREATE TABLE sessions (session TEXT PRIMARY KEY, txn TEXT NOT NULL, reply BLOB NOT NULL);
INSERT INTO meta (key, value) VALUES ('format', '${FORMAT}');
`;

/** SQLite's result codes for a file another connection has locked. */
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;

function sqliteCode(error: unknown): number | undefined {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' ? code & 0xff : undefined;
}

/** Creates the tables in a new (empty) file, or checks that an existing file is one this server wrote. */
function ensureSchema(database: SqliteDatabase, file: string): void {
  const tables = database.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get();
  if (Number(tables?.['n']) === 0) {
    database.exec(SCHEMA);
    return;
  }
  const hasMeta = database.prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
  const format = hasMeta ? database.prepare("SELECT value FROM meta WHERE key = 'format'").get()?.['value'] : undefined;
  if (format !== FORMAT) {
    throw new DataFileError(
      file,
      `${file} is a SQLite file but not an embedded MongoDB data file of format ${FORMAT} (found ${format === undefined ? 'no format' : `format ${String(format)}`}); point --data-dir at another folder or move the file away`,
    );
  }
  const check = database.prepare('PRAGMA quick_check').get()?.['quick_check'];
  if (check !== 'ok') throw new Error(`PRAGMA quick_check reports: ${String(check)}`);
}

/**
 * Opens (creating it if needed) `<dataDir>/embedded-mongo.sqlite` in WAL mode, exclusively:
 * `locking_mode = EXCLUSIVE` plus a first write at open takes the file's lock and holds it until
 * {@link SqliteDatabase.close} or the process dies (the OS releases it after a kill -9), so a
 * second server on the same folder is refused here. `node:sqlite` is loaded only by this call,
 * so the in-memory mode never pays for it. Throws {@link DataFileError} naming the file when it
 * is held by another process, is not a data file of this server, or is damaged: the server never
 * starts empty over a file it cannot read.
 */
export function openDataFile(dataDir: string, sync: SyncMode): { database: SqliteDatabase; file: string } {
  const file = join(dataDir, DATA_FILE_NAME);
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (error) {
    throw new DataFileError(file, `cannot create the data folder ${dataDir}: ${errorMessage(error)}; check the path and its permissions`, { cause: error });
  }
  // Loaded here, not imported at the top: the in-memory mode must not load node:sqlite at all.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { DatabaseSync } = require('node:sqlite') as { DatabaseSync: new (path: string) => SqliteDatabase };
  let database: SqliteDatabase;
  try {
    database = new DatabaseSync(file);
  } catch (error) {
    throw new DataFileError(file, `cannot open ${file}: ${errorMessage(error)}; check the path and its permissions`, { cause: error });
  }
  try {
    // EXCLUSIVE before the first WAL access: SQLite then keeps the WAL index in the process,
    // with no -shm file another process could share.
    database.exec('PRAGMA locking_mode = EXCLUSIVE');
    const mode = database.prepare('PRAGMA journal_mode = WAL').get()?.['journal_mode'];
    if (mode !== 'wal') throw new Error(`SQLite kept journal_mode '${String(mode)}' instead of 'wal'`);
    database.exec(`PRAGMA synchronous = ${sync === 'full' ? 'FULL' : 'NORMAL'}`);
    database.exec('BEGIN IMMEDIATE');
    ensureSchema(database, file);
    database.exec('COMMIT');
    return { database, file };
  } catch (error) {
    database.close();
    if (error instanceof DataFileError) throw error;
    const code = sqliteCode(error);
    if (code === SQLITE_BUSY || code === SQLITE_LOCKED) {
      throw new DataFileError(file, `another embedded MongoDB (or process) holds ${file}; stop it first`, { cause: error });
    }
    throw new DataFileError(file, unreadable(file, error), { cause: error });
  }
}

/** The message for a data file that cannot be read: which file, why, and that nothing starts empty over it. */
export function unreadable(file: string, error: unknown): string {
  const reason = errorMessage(error);
  return `cannot read the embedded MongoDB data file ${file} (${reason}); it is damaged or not a file this server wrote. The server does not start empty over it: move it away or restore it from a backup, then start again`;
}
