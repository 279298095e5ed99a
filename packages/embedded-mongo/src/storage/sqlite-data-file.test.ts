import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataFileError } from '../errors/data-file-error';
import { loadDataFile, type PersistedState } from './data-file-loader';
import { DATA_FILE_NAME } from './sqlite-data-file';

let dir: string;
const open: PersistedState[] = [];

function load(): PersistedState {
  const state = loadDataFile(dir, 'normal');
  open.push(state);
  return state;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'embedded-mongo-data-file-'));
});
afterEach(() => {
  for (const state of open.splice(0)) state.journal.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('when the data file cannot be used', () => {
  it('refuses a second opening while the first holds the file', () => {
    load();
    const file = join(dir, DATA_FILE_NAME);
    expect(() => loadDataFile(dir, 'normal')).toThrow(new DataFileError(file, `another embedded MongoDB (or process) holds ${file}; stop it first`));
  });

  it('refuses a file that is not SQLite, naming it, rather than starting empty', () => {
    const file = join(dir, DATA_FILE_NAME);
    writeFileSync(file, Buffer.alloc(8192, 'garbage '));
    expect(() => loadDataFile(dir, 'normal')).toThrow(DataFileError);
    expect(() => loadDataFile(dir, 'normal')).toThrow(`cannot read the embedded MongoDB data file ${file} (file is not a database)`);
  });

  it('refuses a SQLite file of another application', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { DatabaseSync } = require('node:sqlite') as { DatabaseSync: new (path: string) => { exec(sql: string): void; close(): void } };
    const file = join(dir, DATA_FILE_NAME);
    const other = new DatabaseSync(file);
    other.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY)');
    other.close();
    expect(() => loadDataFile(dir, 'normal')).toThrow(`${file} is a SQLite file but not an embedded MongoDB data file of format 1 (found no format)`);
  });

  it('refuses a document that is not BSON, naming the file', () => {
    const state = load();
    state.catalog.ensure('db', 'c').collection.insert({ _id: 1 });
    state.journal.commit();
    state.journal.close();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { DatabaseSync } = require('node:sqlite') as { DatabaseSync: new (path: string) => { exec(sql: string): void; close(): void } };
    const file = join(dir, DATA_FILE_NAME);
    const raw = new DatabaseSync(file);
    raw.exec("UPDATE documents SET doc = x'0500000000ff'");
    raw.close();
    expect(() => loadDataFile(dir, 'normal')).toThrow(`cannot read the embedded MongoDB data file ${file}`);
  });
});
