import { MongoClient, type Db } from 'mongodb';
import type { ProcessDocument, ProcessEventEntry } from '@sas/contracts';
import { EmbeddedMongoServer } from '@sas/embedded-mongo';
import { CollectionNames, MongoProcessStore, ensureIndexes } from '@sas/store';
import { createProcess, orderFulfilmentV1 } from '@sas/workflow';

/**
 * The store's own queries over 50,000 processes in the embedded MongoDB: each one is answered
 * through an index and reads a handful of documents, not the collection. Counted, never timed.
 */
const T0 = Date.UTC(2030, 0, 1);
const NOW = new Date(T0 + 60_000);
const DB = 'index_use';
const PROCESSES = 50_000;
const PENDING_EVERY = 50; // 1,000 pending processes, half of them due

let server: EmbeddedMongoServer;
let client: MongoClient;
let db: Db;
let store: MongoProcessStore;

function processDoc(i: number): ProcessDocument {
  const doc = createProcess({
    processId: `p-${i}`,
    orderId: `order-${i}`,
    payload: { sku: 'sku-1' },
    replyTo: 'app.status',
    workflow: orderFulfilmentV1,
    now: T0,
  });
  const updatedAt = new Date(T0 + (i % 977) * 1000);
  if (i % PENDING_EVERY === 0) return { ...doc, notBefore: new Date(T0 + (i % 120) * 1000), updatedAt };
  // Finished and kept for its retention: history that must not slow anything down.
  return { ...doc, state: 'Processed', updatedAt, deleteTime: new Date(T0 + 7 * 86_400_000) };
}

function historyOf(i: number): ProcessEventEntry[] {
  return [0, 1, 2].map((n) => ({
    processId: `p-${i}`,
    orderId: `order-${i}`,
    who: 'test',
    at: new Date(T0 + n * 1000),
    from: null,
    to: 'Pending',
    why: `event ${n}`,
    attempt: 0,
    step: null,
    deleteTime: null,
  }));
}

/** Runs a read and returns what it returned, the plan it used and the documents it read. */
async function measure<T>(collection: string, read: () => Promise<T>): Promise<{ result: T; plan: string; examined: number }> {
  const before = server.queryStats(DB, collection)?.examined ?? 0;
  const result = await read();
  const stats = server.queryStats(DB, collection);
  return { result, plan: stats?.lastPlan ?? 'none', examined: (stats?.examined ?? 0) - before };
}

beforeAll(async () => {
  server = new EmbeddedMongoServer({ port: 0, ttlMonitorIntervalMs: 3_600_000 });
  const { url } = await server.start();
  client = await MongoClient.connect(url);
  db = client.db(DB);
  await ensureIndexes(db);
  store = new MongoProcessStore(db);
  for (let start = 0; start < PROCESSES; start += 5_000) {
    const ids = Array.from({ length: 5_000 }, (_, k) => start + k);
    await db.collection<ProcessDocument>(CollectionNames.processes).insertMany(ids.map(processDoc));
    await db.collection(CollectionNames.processEvents).insertMany(ids.slice(0, 1_000).flatMap(historyOf));
  }
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

describe('when the embedded MongoDB holds 50,000 processes, most of them finished', () => {
  it('claims the 20 earliest due processes reading at most 100 documents', async () => {
    const { result, plan, examined } = await measure(CollectionNames.processes, () => store.findClaimable(NOW, 20));
    expect(plan).toBe('IXSCAN claim');
    expect(examined).toBeLessThanOrEqual(100);
    const expected = Array.from({ length: PROCESSES }, (_, i) => processDoc(i))
      .filter((d) => d.state === 'Pending' && d.notBefore <= NOW)
      .sort((a, b) => a.notBefore.getTime() - b.notBefore.getTime())
      .slice(0, 20)
      .map((d) => d._id);
    expect(result.map((p) => p._id)).toEqual(expected);
  });

  it('sweeps expired, owed and listed processes through their indexes', async () => {
    const expired = await measure(CollectionNames.processes, () => store.findExpired(NOW, 20));
    expect(expired).toMatchObject({ result: [], plan: 'IXSCAN sweep', examined: 0 });
    const owed = await measure(CollectionNames.processes, () => store.findUndelivered(NOW, 20));
    expect(owed).toMatchObject({ result: [], plan: 'IXSCAN owed', examined: 0 });
    const list = await measure(CollectionNames.processes, () =>
      db.collection(CollectionNames.processes).find({}).sort({ updatedAt: -1, _id: -1 }).limit(50).toArray(),
    );
    expect(list.plan).toBe('IXSCAN recent');
    expect(list.examined).toBeLessThanOrEqual(200);
    const byOrder = await measure(CollectionNames.processes, () => store.getByOrderId('order-4242'));
    expect(byOrder).toMatchObject({ plan: 'IXSCAN orderId_unique', examined: 1 });
    expect(byOrder.result?._id).toBe('p-4242');
  });

  it('reads one process history from the byProcess index', async () => {
    const history = await measure(CollectionNames.processEvents, () => store.history('p-777'));
    expect(history.plan).toBe('IXSCAN byProcess');
    expect(history.examined).toBe(3);
    expect(history.result.map((e) => e.why)).toEqual(['event 0', 'event 1', 'event 2']);
  });

  it('keeps the claim index in step when a claimed process leaves Pending', async () => {
    const [first] = await store.findClaimable(NOW, 1);
    await db.collection<ProcessDocument>(CollectionNames.processes).updateOne({ _id: first?._id }, { $set: { state: 'Processing' } });
    const next = await store.findClaimable(NOW, 20);
    expect(next.map((p) => p._id)).not.toContain(first?._id);
    expect(next).toHaveLength(20);
  });
});
