import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findWorkspaceRoot, freePort, ManagedProcess } from '@sas/stack';
import { MongoClient, MongoServerError, type Collection, type Document } from 'mongodb';

/**
 * The embedded MongoDB run as `sas up` runs it: a child process on a data folder, killed -9 at
 * random moments under concurrent acknowledged writes and restarted on the same folder. Whatever
 * was acknowledged must be there, nothing torn, unique indexes enforced, indexes answering as a
 * collection scan, and no write applied twice by the driver's retry.
 */
const CLI = join(findWorkspaceRoot(), 'packages/embedded-mongo/dist/cli.js');
const ROUNDS_BUDGET_MS = 12_000;
const WORKERS = 8;

let dir: string;
const processes: ManagedProcess[] = [];
const clients: MongoClient[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'embedded-mongo-durability-'));
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close(true)));
  await Promise.all(processes.splice(0).map((p) => p.stop()));
  rmSync(dir, { recursive: true, force: true });
});

function serverProcess(args: string[], cwd?: string): ManagedProcess {
  const server = new ManagedProcess({ name: 'embedded-mongo', command: process.execPath, args: [CLI, ...args], cwd });
  processes.push(server);
  return server;
}

async function listening(server: ManagedProcess): Promise<string> {
  await server.start();
  const line = await server.waitForLine((l) => l.json?.['event'] === 'listening', 15_000, 'the listening line');
  return String(line.json?.['url']);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const rand = (n: number): number => Math.floor(Math.random() * n);

interface Item {
  _id: string;
  key: string;
  k2: string;
  group: number;
  g2: number;
  payload: string;
  len: number;
}
interface Counter {
  _id: string;
  n: number;
  ops: string[];
}

/** What the workers know: acknowledged writes, and writes whose outcome is unknown (no reply). */
interface Ledger {
  inserted: Set<string>;
  maybeInserted: Set<string>;
  deleted: Set<string>;
  maybeDeleted: Set<string>;
  incs: Map<string, string>; // op id → counter id, acknowledged
  maybeIncs: Set<string>;
  violations: string[];
  /** Bumped at each kill; a write acknowledged in a later one was retried by the driver across the restart. */
  kills: number;
  acknowledgedAcrossRestart: number;
}

/** Runs a write and counts it when its reply came from the restarted server (the driver retried it). */
async function acknowledged<T>(ledger: Ledger, write: () => Promise<T>): Promise<T> {
  const kills = ledger.kills;
  const result = await write();
  if (ledger.kills !== kills) ledger.acknowledgedAcrossRestart++;
  return result;
}

async function worker(w: number, items: Collection<Item>, counters: Collection<Counter>, ledger: Ledger, running: () => boolean): Promise<void> {
  for (let seq = 0; running(); seq++) {
    const id = `w${w}-${Date.now().toString(36)}-${seq}`;
    const roll = Math.random();
    if (roll < 0.5) {
      const len = rand(2000);
      const group = rand(10);
      try {
        await acknowledged(ledger, () => items.insertOne({ _id: id, key: `k-${id}`, k2: `k-${id}`, group, g2: group, payload: 'x'.repeat(len), len }));
        ledger.inserted.add(id);
      } catch (error) {
        // A fresh _id and key: a duplicate can only be this very insert, committed, then retried and not replayed.
        if (error instanceof MongoServerError && error.code === 11000) ledger.violations.push(`insert ${id} refused as a duplicate of itself`);
        ledger.maybeInserted.add(id);
      }
    } else if (roll < 0.8) {
      const counter = `c${rand(5)}`;
      try {
        await acknowledged(ledger, () => counters.findOneAndUpdate({ _id: counter }, { $inc: { n: 1 }, $push: { ops: id } }));
        ledger.incs.set(id, counter);
      } catch {
        ledger.maybeIncs.add(id);
      }
    } else {
      const victim = [...ledger.inserted].find((i) => !ledger.deleted.has(i) && !ledger.maybeDeleted.has(i));
      if (victim === undefined) continue;
      ledger.maybeDeleted.add(victim);
      try {
        const { deletedCount } = await acknowledged(ledger, () => items.deleteOne({ _id: victim }));
        if (deletedCount !== 1) ledger.violations.push(`delete of ${victim} acknowledged with deletedCount ${deletedCount}`);
        ledger.maybeDeleted.delete(victim);
        ledger.deleted.add(victim);
      } catch {
        // Outcome unknown: stays in maybeDeleted.
      }
    }
  }
}

async function ids(cursor: AsyncIterable<Document>): Promise<string[]> {
  const out: string[] = [];
  for await (const doc of cursor) out.push(String(doc['_id']));
  return out;
}

async function verify(items: Collection<Item>, counters: Collection<Counter>, ledger: Ledger): Promise<void> {
  const stored = await items.find().toArray();
  const present = new Set(stored.map((d) => d._id));
  for (const doc of stored) {
    const id = doc._id;
    const intact = doc.key === `k-${id}` && doc.k2 === doc.key && doc.g2 === doc.group && doc.payload.length === doc.len;
    if (!intact) ledger.violations.push(`torn document ${JSON.stringify(doc).slice(0, 200)}`);
    if (!ledger.inserted.has(id) && !ledger.maybeInserted.has(id)) ledger.violations.push(`document ${id} was never written`);
  }
  for (const id of ledger.inserted) {
    if (!present.has(id) && !ledger.deleted.has(id) && !ledger.maybeDeleted.has(id)) ledger.violations.push(`acknowledged insert ${id} lost`);
  }
  for (const id of ledger.deleted) if (present.has(id)) ledger.violations.push(`acknowledged delete of ${id} undone`);
  for (const counter of await counters.find().toArray()) {
    const { ops } = counter;
    if (new Set(ops).size !== ops.length) ledger.violations.push(`counter ${counter._id} applied an update twice`);
    if (counter.n !== ops.length) ledger.violations.push(`counter ${counter._id} is torn: n ${counter.n}, ${ops.length} ops`);
    for (const op of ops) if (!ledger.incs.has(op) && !ledger.maybeIncs.has(op)) ledger.violations.push(`counter op ${op} was never sent`);
  }
  const applied = new Set((await counters.find().toArray()).flatMap((c) => c.ops));
  for (const op of ledger.incs.keys()) if (!applied.has(op)) ledger.violations.push(`acknowledged $inc ${op} lost`);
  // Index-backed answers equal collection scans over the unindexed copies of the same fields.
  for (let group = 0; group < 10; group++) {
    const indexed = await ids(items.find({ group }).sort({ key: 1 }));
    const scanned = await ids(items.find({ g2: group }).sort({ k2: 1 }));
    if (indexed.join() !== scanned.join()) ledger.violations.push(`group ${group}: index answers ${indexed.length} ids, scan ${scanned.length}`);
  }
  const sample = stored.slice(0, 20);
  const keys = sample.map((d) => d.key);
  const byKey = await ids(items.find({ key: { $in: keys } }).sort({ _id: 1 }));
  const byCopy = await ids(items.find({ k2: { $in: keys } }).sort({ _id: 1 }));
  if (byKey.join() !== byCopy.join()) ledger.violations.push('key index and scan disagree');
  for (const doc of sample) {
    const copy = { ...doc, _id: `copy-${doc._id}` };
    const dup = await items.insertOne(copy).then(() => undefined, (error: unknown) => error);
    if (!(dup instanceof MongoServerError && dup.code === 11000)) ledger.violations.push(`unique key ${doc.key} no longer enforced`);
  }
}

describe('when the embedded MongoDB keeps its state on disk and is killed -9 under load', () => {
  it('keeps every acknowledged write, torn nowhere, with its indexes equal to a rebuild and no write applied twice', async () => {
    const port = await freePort();
    const server = serverProcess(['--port', String(port), '--data-dir', dir, '--repl-set', 'rs0']);
    const url = await listening(server);
    const client = await MongoClient.connect(url, { serverSelectionTimeoutMS: 15_000, retryWrites: true });
    clients.push(client);
    const db = client.db('durability');
    const items = db.collection<Item>('items');
    const counters = db.collection<Counter>('counters');
    await items.createIndex({ key: 1 }, { unique: true });
    await items.createIndex({ group: 1 });
    await counters.insertMany([0, 1, 2, 3, 4].map((i) => ({ _id: `c${i}`, n: 0, ops: [] })));
    const ledger: Ledger = { inserted: new Set(), maybeInserted: new Set(), deleted: new Set(), maybeDeleted: new Set(), incs: new Map(), maybeIncs: new Set(), violations: [], kills: 0, acknowledgedAcrossRestart: 0 };

    const started = Date.now();
    let rounds = 0;
    while (rounds < 3 || (Date.now() - started < ROUNDS_BUDGET_MS && rounds < 12)) {
      rounds++;
      let running = true;
      const workers = Array.from({ length: WORKERS }, (_, w) => worker(w, items, counters, ledger, () => running));
      await sleep(150 + rand(600));
      ledger.kills++;
      await server.kill('SIGKILL');
      await listening(server); // same port, same folder: the driver's retries of the writes in flight land here
      await sleep(rand(200));
      running = false;
      await Promise.all(workers);
      await verify(items, counters, ledger);
      expect(ledger.violations).toEqual([]);
    }
    expect(ledger.inserted.size + ledger.incs.size).toBeGreaterThan(100);
    // The property only says something about retries if some writes were retried across a restart.
    expect(ledger.acknowledgedAcrossRestart).toBeGreaterThan(0);
    // Every stderr line is a JSON log line: node:sqlite's ExperimentalWarning is not printed.
    const plain = server.lines.filter((l) => l.stream === 'stderr' && l.json === undefined);
    expect(plain.map((l) => l.text)).toEqual([]);
    console.log(
      `durability: ${rounds} kill -9 rounds, ${ledger.inserted.size} inserts, ${ledger.incs.size} $inc, ${ledger.deleted.size} deletes acknowledged; ` +
        `${ledger.acknowledgedAcrossRestart} acknowledged by the restarted server after a retry, ` +
        `${ledger.maybeInserted.size + ledger.maybeIncs.size + ledger.maybeDeleted.size} writes without a reply`,
    );
  });
});

describe('when the data folder is already in use', () => {
  it('refuses a second server on it, naming the file, and lets a server in after the first was killed -9', async () => {
    const first = serverProcess(['--port', '0', '--data-dir', dir]);
    await listening(first);
    const second = serverProcess(['--port', '0', '--data-dir', dir]);
    await second.start();
    const exit = await second.whenExited();
    expect(exit?.code).toBe(1);
    const file = join(dir, 'embedded-mongo.sqlite');
    expect(second.lines.map((l) => l.json?.['error'])).toContain(`another embedded MongoDB (or process) holds ${file}; stop it first`);

    await first.kill('SIGKILL');
    await expect(listening(second)).resolves.toMatch(/^mongodb:\/\//);
  });
});

describe('when no data folder is given', () => {
  it('writes no file anywhere and never loads node:sqlite', async () => {
    const server = serverProcess(['--port', '0'], dir);
    const client = await MongoClient.connect(await listening(server));
    clients.push(client);
    await client.db('memory').collection('c').insertMany([{ a: 1 }, { a: 2 }]);
    await server.stop();
    expect(readdirSync(dir)).toEqual([]);

    const probe = `const { EmbeddedMongoServer } = require(${JSON.stringify(join(findWorkspaceRoot(), 'packages/embedded-mongo/dist/index.js'))});
      const server = new EmbeddedMongoServer();
      server.start().then(() => server.close()).then(() => console.log(JSON.stringify(process.moduleLoadList.filter((m) => /sqlite/i.test(m)))));`;
    expect(execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' }).trim()).toBe('[]');
  });
});
