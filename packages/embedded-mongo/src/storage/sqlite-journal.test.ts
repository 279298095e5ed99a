import { UUID } from 'bson';
import { CommandDispatcher } from '../commands/command-dispatcher';
import type { CommandContext } from '../commands/command-context';
import { CursorManager } from '../cursors/cursor-manager';
import { DataFileError } from '../errors/data-file-error';
import { ReplicaSetMember } from '../replication/replica-set-member';
import { RetryableWriteLog } from '../replication/retryable-write-log';
import { Catalog } from './catalog';
import type { SqliteDatabase } from './sqlite-data-file';
import { SqliteJournal } from './sqlite-journal';

/** A database whose statements fail once `failing` is set, as on a full disk; records what it was asked. */
function fakeDatabase(): { database: SqliteDatabase; executed: string[]; fail: (message: string) => void } {
  const executed: string[] = [];
  let failing: string | undefined;
  const check = (what: string): void => {
    executed.push(what);
    if (failing !== undefined && what !== 'ROLLBACK') throw new Error(failing);
  };
  const database: SqliteDatabase = {
    exec: (sql) => check(sql),
    prepare: (sql) => ({
      run: () => {
        check(sql.split(' ').slice(0, 3).join(' '));
        return { changes: 1, lastInsertRowid: 1 };
      },
      get: () => undefined,
      iterate: () => [][Symbol.iterator](),
    }),
    close: () => executed.push('close'),
  };
  return { database, executed, fail: (message) => (failing = message) };
}

describe('SqliteJournal', () => {
  it('opens one transaction at the first change after a commit and commits it once, and does nothing for a command that changed nothing', () => {
    const { database, executed } = fakeDatabase();
    const journal = new SqliteJournal(database, '/data/embedded-mongo.sqlite');
    journal.commit();
    const collection = journal.collectionCreated('db', 'c', new UUID());
    collection.documentWritten(0, { _id: 1 });
    collection.documentRemoved(0);
    journal.commit();
    expect(executed).toEqual(['BEGIN', 'INSERT INTO collections', 'INSERT OR REPLACE', 'DELETE FROM documents', 'COMMIT']);
  });

  it('keeps a failed write from the command that made it and throws it at the commit, after rolling back, naming the file', () => {
    const { database, executed, fail } = fakeDatabase();
    const journal = new SqliteJournal(database, '/data/embedded-mongo.sqlite');
    const collection = journal.collectionCreated('db', 'c', new UUID());
    fail('database or disk is full');
    expect(() => collection.documentWritten(1, { _id: 2 })).not.toThrow();
    let thrown: unknown;
    try {
      journal.commit();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DataFileError);
    expect((thrown as DataFileError).file).toBe('/data/embedded-mongo.sqlite');
    expect((thrown as DataFileError).message).toBe(
      "could not write to /data/embedded-mongo.sqlite (database or disk is full); the last change is not saved and the server stops: free disk space or fix the file's permissions, then restart it",
    );
    expect(executed.at(-1)).toBe('ROLLBACK');
    expect(executed).not.toContain('COMMIT');
  });
});

describe('when a command\'s changes cannot be committed', () => {
  it('answers InternalError instead of the reply, so the write is never acknowledged', () => {
    const { database, fail } = fakeDatabase();
    const journal = new SqliteJournal(database, '/data/embedded-mongo.sqlite');
    const ctx: CommandContext = {
      catalog: new Catalog(journal),
      cursors: new CursorManager(() => 0),
      replication: new ReplicaSetMember(undefined, () => 0),
      retryableWrites: new RetryableWriteLog(10, journal),
      connectionId: 1,
      now: () => new Date(0),
    };
    const internal: unknown[] = [];
    const dispatcher = new CommandDispatcher((error) => internal.push(error), () => journal.commit());
    fail('disk I/O error');
    const reply = dispatcher.dispatch({ insert: 'c', documents: [{ _id: 1 }], $db: 'db' }, ctx);
    expect(reply).toMatchObject({ ok: 0, code: 1, codeName: 'InternalError' });
    expect(String(reply['errmsg'])).toContain('could not write to /data/embedded-mongo.sqlite (disk I/O error)');
    expect(internal[0]).toBeInstanceOf(DataFileError);
  });
});
