import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedMongoServer } from '@sas/embedded-mongo';
import { MongoClient, MongoServerError, type Db } from 'mongodb';
import { snapshotDatabases } from './database-snapshot';

/**
 * The MongoDB a conformance test talks to: the real server at `MONGO_URL` when set, otherwise an
 * in-process `EmbeddedMongoServer` (in memory, or persisted: see {@link persistEmbeddedTargets}).
 * Tests go through the official driver only, so the same expectations hold both ways; that is
 * what keeps the embedded server honest.
 */
export interface MongoTarget {
  /** Which server answers. */
  readonly kind: 'real' | 'embedded';
  /** The connected driver client (valid inside tests). */
  readonly client: MongoClient;
  /** The current test's own database: fresh for each test, dropped after it. */
  db(): Db;
  /** How long to wait for TTL expiry: real MongoDB's monitor runs only every 60 s. */
  readonly ttlDeadlineMs: number;
}

let dbCounter = 0;
let persisted = false;

/**
 * From now on (in this test file's module registry), embedded servers keep their state on disk:
 * `persisted-mode.test.ts` turns it on, then loads every conformance file again, so the whole
 * suite also holds for the persisted mode.
 */
export function persistEmbeddedTargets(): void {
  persisted = true;
}

/**
 * The storage options of an embedded server in this run: none (in memory), or, once
 * {@link persistEmbeddedTargets} was called, a fresh temporary `dataDir`. Call it where tests are
 * declared; the caller removes it with {@link removeEmbeddedStorage} once its server is closed.
 */
export function embeddedStorage(): { dataDir?: string } {
  if (!persisted) return {};
  return { dataDir: mkdtempSync(join(tmpdir(), 'sas-conformance-')) };
}

/** Removes the temporary data folder of {@link embeddedStorage}, if any. */
export function removeEmbeddedStorage(storage: { dataDir?: string }): void {
  if (storage.dataDir !== undefined) rmSync(storage.dataDir, { recursive: true, force: true });
}

/**
 * Registers jest hooks that connect once per file (starting an embedded server if needed),
 * hand each test a uniquely named database and drop it afterwards, then close everything.
 * A persisted embedded server keeps the tests' databases instead, and at the end of the file is
 * restarted on its data folder: what the driver sees before and after must be equal.
 */
export function useMongoTarget(): MongoTarget {
  const realUrl = process.env['MONGO_URL'];
  const storage = realUrl ? {} : embeddedStorage();
  let server: EmbeddedMongoServer | undefined;
  let client: MongoClient | undefined;
  let current: Db | undefined;
  const kept: string[] = [];

  async function connect(): Promise<void> {
    let url = realUrl;
    if (url === undefined || url === '') {
      server = new EmbeddedMongoServer({ ttlMonitorIntervalMs: 200, ...storage });
      url = (await server.start()).url;
    }
    client = await MongoClient.connect(url, { serverSelectionTimeoutMS: 10_000 });
  }

  beforeAll(connect);
  beforeEach(() => {
    dbCounter += 1;
    const name = `conf_${process.pid}_${dbCounter}_${Math.random().toString(36).slice(2, 8)}`;
    current = target.client.db(name);
  });
  afterEach(async () => {
    if (storage.dataDir !== undefined && current !== undefined) kept.push(current.databaseName);
    else await current?.dropDatabase();
    current = undefined;
  });
  afterAll(async () => {
    if (storage.dataDir !== undefined && client !== undefined) {
      const before = await snapshotDatabases(client, kept);
      await client.close();
      await server?.close();
      await connect();
      expect(await snapshotDatabases(target.client, kept)).toEqual(before);
    }
    await client?.close();
    await server?.close();
    removeEmbeddedStorage(storage);
  });

  const target: MongoTarget = {
    kind: realUrl ? 'real' : 'embedded',
    get client(): MongoClient {
      if (client === undefined)
        throw new Error('the conformance client is used before beforeAll connected it');
      return client;
    },
    db(): Db {
      if (current === undefined) throw new Error('db() is only available inside a test');
      return current;
    },
    ttlDeadlineMs: realUrl ? 120_000 : 10_000,
  };
  return target;
}

/** Awaits a promise that must fail with a `MongoServerError`, and returns that error for further assertions. */
export async function serverError(promise: Promise<unknown>): Promise<MongoServerError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof MongoServerError) return error;
    throw new Error(`expected a MongoServerError, got ${String(error)}`);
  }
  throw new Error('expected the operation to fail with a MongoServerError, but it succeeded');
}

/** Polls `condition` until it holds or the deadline passes (then throws, naming what was awaited). */
export async function waitFor(
  what: string,
  condition: () => Promise<boolean>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
