import type { Db, MongoClient } from 'mongodb';
import type { ProcessDocument, ProcessEventEntry } from '@sas/contracts';
import {
  CollectionNames,
  InMemoryAgentPauseStore,
  InMemoryProcessStore,
  MongoAgentPauseStore,
  type AgentPauseStore,
  LeaseRepository,
  MongoProcessStore,
  ensureIndexes,
  type ProcessStore,
} from '@sas/store';
import { TestStack, uniqueName } from '@sas/testkit';
import { createProcess, orderFulfilmentV1 } from '@sas/workflow';

const T0 = Date.UTC(2030, 0, 1);

let stack: TestStack;
let client: MongoClient;

beforeAll(async () => {
  stack = await TestStack.start({ name: 'mongo-process-store', mongo: { ttlIntervalMs: 200 } });
  client = await stack.mongoClient();
});
afterAll(() => stack?.stop());

/** A database of its own for each test, so no test sees another's documents. */
function freshDb(): Db {
  return client.db(uniqueName('store'));
}

function processDoc(id: string, overrides: Partial<ProcessDocument> = {}): ProcessDocument {
  const doc = createProcess({
    processId: id,
    orderId: `order-${id}`,
    payload: { sku: 'sku-1' },
    replyTo: 'app.status',
    workflow: orderFulfilmentV1,
    now: T0,
  });
  return { ...doc, ...overrides };
}

function event(processId: string, atMs: number, why: string): ProcessEventEntry {
  return {
    processId,
    orderId: `order-${processId}`,
    who: 'scheduler-1',
    at: new Date(atMs),
    from: 'Pending',
    to: 'Processing',
    why,
    attempt: 1,
    step: 'reserve-inventory',
    deleteTime: null,
  };
}

// The in-memory store is held to the same behaviour as the MongoDB one, by the same tests.
describe.each<[string, () => Promise<ProcessStore>]>([
  [
    'MongoProcessStore',
    async () => {
      const db = freshDb();
      await ensureIndexes(db);
      return new MongoProcessStore(db);
    },
  ],
  ['InMemoryProcessStore', async () => new InMemoryProcessStore()],
])('%s', (_name, open) => {
  it('returns an inserted process by id and by orderId', async () => {
    const store = await open();
    const doc = processDoc('p-1');
    expect(await store.insert(doc)).toEqual({ ok: true });

    expect(await store.get('p-1')).toEqual(doc);
    expect(await store.getByOrderId('order-p-1')).toEqual(doc);
    expect(await store.get('p-2')).toBeNull();
    expect(await store.getByOrderId('order-p-2')).toBeNull();
  });

  it('refuses a second process with the same orderId or the same id as a duplicate', async () => {
    const store = await open();
    await store.insert(processDoc('p-1'));

    expect(await store.insert(processDoc('p-2', { orderId: 'order-p-1' }))).toEqual({
      ok: false,
      reason: 'duplicate',
    });
    expect(await store.insert(processDoc('p-1', { orderId: 'order-other' }))).toEqual({
      ok: false,
      reason: 'duplicate',
    });
    expect(await store.get('p-2')).toBeNull();
    expect(await store.getByOrderId('order-other')).toBeNull();
  });

  it('commits only over the expected revision', async () => {
    const store = await open();
    const doc = processDoc('p-1');
    await store.insert(doc);
    const next = { ...doc, state: 'Processing' as const, attempt: 1, revision: 1 };

    expect(await store.commit({ ...next, revision: 6 }, 5)).toEqual({ ok: false, reason: 'conflict' });
    expect(await store.get('p-1')).toEqual(doc);
    expect(await store.commit(next, 0)).toEqual({ ok: true });
    expect(await store.get('p-1')).toEqual(next);
    expect(await store.commit({ ...next, revision: 1 }, 0)).toEqual({ ok: false, reason: 'conflict' });
    expect(await store.commit(processDoc('p-missing', { revision: 1 }), 0)).toEqual({
      ok: false,
      reason: 'conflict',
    });
  });

  it('lets exactly one of two concurrent commits over the same revision win', async () => {
    const store = await open();
    const doc = processDoc('p-1');
    await store.insert(doc);
    const results = await Promise.all([
      store.commit({ ...doc, lockedBy: 'scheduler-a', revision: 1 }, 0),
      store.commit({ ...doc, lockedBy: 'scheduler-b', revision: 1 }, 0),
    ]);

    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const winner = results[0]?.ok ? 'scheduler-a' : 'scheduler-b';
    expect(await store.get('p-1')).toMatchObject({ lockedBy: winner, revision: 1 });
  });

  it('finds Pending processes whose notBefore has passed, oldest first, up to the limit', async () => {
    const store = await open();
    await store.insert(processDoc('late', { notBefore: new Date(T0 + 2) }));
    await store.insert(processDoc('early', { notBefore: new Date(T0 + 1) }));
    await store.insert(processDoc('future', { notBefore: new Date(T0 + 10) }));
    await store.insert(processDoc('held', { state: 'Processing', notBefore: new Date(T0) }));
    await store.insert(processDoc('done', { state: 'Processed', notBefore: new Date(T0) }));
    const now = new Date(T0 + 5);

    expect((await store.findClaimable(now, 10)).map((d) => d._id)).toEqual(['early', 'late']);
    expect((await store.findClaimable(now, 1)).map((d) => d._id)).toEqual(['early']);
    expect((await store.findClaimable(new Date(T0 + 2), 10)).map((d) => d._id)).toEqual(['early', 'late']);
  });

  it('finds Pending processes held for one agent, longest held first, and no others', async () => {
    const store = await open();
    const held = (id: string, agent: string, at: number, state: ProcessDocument['state'] = 'Pending'): ProcessDocument =>
      processDoc(id, { state, heldFor: agent, updatedAt: new Date(T0 + at), notBefore: new Date('9999-12-31T23:59:59.999Z') });
    for (const doc of [held('p-2', 'payment', 20), held('p-1', 'payment', 10), held('p-3', 'shipping', 5), held('p-4', 'payment', 1, 'Canceled'), processDoc('p-5')]) {
      await store.insert(doc);
    }
    expect((await store.findHeld('payment', 10)).map((s) => s._id)).toEqual(['p-1', 'p-2']);
    expect((await store.findHeld('payment', 1)).map((s) => s._id)).toEqual(['p-1']);
    expect(await store.findHeld('payment', 1)).toEqual([expect.not.objectContaining({ payload: expect.anything() })]);
    expect((await store.findHeld('inventory', 10))).toEqual([]);
  });

  it('reads claim and sweep candidates as summaries, never their payloads, results or outboxes', async () => {
    const store = await open();
    const owed = [{ kind: 'message' as const, id: 'p-1.0.0', queue: 'app.status', message: { status: 'Received' } }];
    await store.insert(processDoc('pending', { outbox: owed }));
    await store.insert(processDoc('held', { state: 'Processing', completeBy: new Date(T0) }));
    const [claimable] = await store.findClaimable(new Date(T0), 10);
    const [expired] = await store.findExpired(new Date(T0), 10);
    const fields = ['_id', 'attempt', 'completeBy', 'currentStep', 'mode', 'notBefore', 'orderId', 'replyTo', 'revision', 'state', 'updatedAt', 'workflow', 'workflowVersion'];
    expect(Object.keys(claimable ?? {}).sort()).toEqual(fields);
    expect(Object.keys(expired ?? {}).sort()).toEqual(fields);
    expect(claimable).toMatchObject({ _id: 'pending', orderId: 'order-pending', revision: 0, replyTo: 'app.status', workflowVersion: 1 });
  });

  it('quarantines a process only at its revision, without reading it, and owes what it appends', async () => {
    const store = await open();
    const previously = [{ kind: 'message' as const, id: 'p-1.0.0', queue: 'app.status', message: { status: 'Received' } }];
    await store.insert(processDoc('p-1', { outbox: previously }));
    const fields = {
      state: 'Error' as const,
      lockedBy: null,
      completeBy: null,
      reason: 'cannot be handled: x',
      revision: 1,
      attempt: 1,
      updatedAt: new Date(T0 + 7),
      deleteTime: null,
    };
    const alert = { kind: 'message' as const, id: 'p-1.1.0', queue: 'alerts', message: { kind: 'ProcessError' } };
    expect(await store.quarantine('p-1', 3, fields, [alert])).toEqual({ ok: false, reason: 'conflict' });
    expect(await store.quarantine('p-1', 0, fields, [alert])).toEqual({ ok: true });
    expect(await store.get('p-1')).toMatchObject({ ...fields, payload: { sku: 'sku-1' }, outbox: [...previously, alert], outboxSince: new Date(T0 + 7) });
    expect((await store.findUndelivered(new Date(T0 + 7), 10)).map((d) => d._id)).toEqual(['p-1']);
  });

  it('finds Processing and Compensating processes whose completeBy has passed, oldest first', async () => {
    const store = await open();
    await store.insert(processDoc('processing', { state: 'Processing', completeBy: new Date(T0 + 3) }));
    await store.insert(processDoc('compensating', { state: 'Compensating', completeBy: new Date(T0 + 1) }));
    await store.insert(processDoc('not-yet', { state: 'Processing', completeBy: new Date(T0 + 10) }));
    await store.insert(processDoc('pending', { state: 'Pending', completeBy: null }));
    await store.insert(processDoc('error', { state: 'Error', completeBy: new Date(T0) }));
    const now = new Date(T0 + 5);

    expect((await store.findExpired(now, 10)).map((d) => d._id)).toEqual(['compensating', 'processing']);
    expect((await store.findExpired(now, 1)).map((d) => d._id)).toEqual(['compensating']);
    expect((await store.findExpired(new Date(T0 + 3), 10)).map((d) => d._id)).toEqual([
      'compensating',
      'processing',
    ]);
  });

  it('keeps each process history in time order, apart from other processes', async () => {
    const store = await open();
    const second = event('p-1', T0 + 2, 'second');
    const first = event('p-1', T0 + 1, 'first');
    const third = event('p-1', T0 + 3, 'third');
    await store.appendEvents([second]);
    await store.appendEvents([first, event('p-2', T0, 'other process'), third]);
    await store.appendEvents([]);

    expect(await store.history('p-1')).toEqual([first, second, third]);
    expect((await store.history('p-2')).map((e) => e.why)).toEqual(['other process']);
    expect(await store.history('p-3')).toEqual([]);
  });

  it('records a history entry with a given _id once, however often it is delivered', async () => {
    const store = await open();
    const entry = { ...event('p-1', T0, 'claimed'), _id: 'p-1.1.h' };
    await store.appendEvents([entry]);
    await store.appendEvents([entry, { ...event('p-1', T0 + 1, 'next'), _id: 'p-1.2.h' }]);
    expect((await store.history('p-1')).map((e) => e.why)).toEqual(['claimed', 'next']);
  });

  it('reads a history that is partly still owed in the process outbox: every entry once, in time order (decision 62)', async () => {
    const store = await open();
    const delivered = { ...event('p-1', T0 + 1, 'submitted'), _id: 'p-1.0.h' };
    const both = { ...event('p-1', T0 + 2, 'claimed'), _id: 'p-1.1.h' };
    await store.appendEvents([delivered, both]);
    const { _id: _both, ...bothEntry } = both;
    const owedEntry = event('p-1', T0 + 3, 'step done');
    await store.insert({
      ...processDoc('p-1'),
      outbox: [
        // Delivered already but not yet cleared, then owed only.
        { kind: 'history', id: 'p-1.1.h', entry: bothEntry },
        { kind: 'history', id: 'p-1.2.h', entry: owedEntry },
        { kind: 'message', id: 'p-1.2.0', queue: 'app.status', message: { status: 'x' } },
      ],
    });
    expect((await store.history('p-1')).map((e) => e.why)).toEqual(['submitted', 'claimed', 'step done']);
    expect((await store.history('p-1'))[2]).toEqual(owedEntry);
    // A process that is gone (or never was) has only what was delivered.
    await store.appendEvents([{ ...event('p-9', T0, 'orphan'), _id: 'p-9.0.h' }]);
    expect((await store.history('p-9')).map((e) => e.why)).toEqual(['orphan']);
  });

  it('dates the undated history of one finished process, and leaves dated entries and other processes alone', async () => {
    const store = await open();
    const dated = { ...event('p-1', T0 + 2, 'finished'), deleteTime: new Date(T0 + 99) };
    await store.appendEvents([event('p-1', T0, 'claimed'), dated, event('p-2', T0, 'other')]);
    await store.expireHistory('p-1', new Date(T0 + 50));
    expect((await store.history('p-1')).map((e) => e.deleteTime)).toEqual([new Date(T0 + 50), new Date(T0 + 99)]);
    expect((await store.history('p-2')).map((e) => e.deleteTime)).toEqual([null]);
  });

  it('finds processes whose outbox has been owed since a given time, and empties one only at its revision', async () => {
    const store = await open();
    const owed = [{ kind: 'message' as const, id: 'p-1.0.0', queue: 'app.status', message: { status: 'Received' } }];
    await store.insert(processDoc('p-1', { outbox: owed, outboxSince: new Date(T0) }));
    await store.insert(processDoc('p-2', { outbox: owed, outboxSince: new Date(T0 + 10_000) }));
    await store.insert(processDoc('p-0', { outbox: owed, outboxSince: new Date(T0 - 1) }));
    await store.insert(processDoc('p-3', { outbox: [], outboxSince: null }));
    await store.insert(processDoc('p-4', { updatedAt: new Date(T0) }));

    const found = await store.findUndelivered(new Date(T0 + 5000), 10);
    expect(found.map((d) => d._id)).toEqual(['p-0', 'p-1']);
    // Only what delivering needs, never the payload.
    expect(Object.keys(found[0] ?? {}).sort()).toEqual(['_id', 'deleteTime', 'orderId', 'outbox', 'revision']);
    expect(await store.findUndelivered(new Date(T0 + 5000), 1)).toHaveLength(1);
    await store.clearOutbox('p-0', 0);
    await store.clearOutbox('p-1', 7); // a stale revision changes nothing
    expect((await store.get('p-1'))?.outbox).toEqual(owed);
    await store.clearOutbox('p-1', 0);
    expect(await store.get('p-1')).toMatchObject({ outbox: [], outboxSince: null });
    expect(await store.findUndelivered(new Date(T0 + 5000), 10)).toEqual([]);
  });

  it('hands out copies, so changing a returned or inserted document changes nothing stored', async () => {
    const store = await open();
    const doc = processDoc('p-1');
    await store.insert(doc);
    doc.payload['sku'] = 'changed after insert';
    const read = await store.get('p-1');
    if (!read) throw new Error('p-1 was not stored');
    read.state = 'Error';
    read.notBefore.setTime(0);

    expect(await store.get('p-1')).toMatchObject({
      state: 'Pending',
      payload: { sku: 'sku-1' },
      notBefore: new Date(T0),
    });
  });
});

describe('ensureIndexes', () => {
  it('creates the unique orderId, claim, sweep and TTL indexes, and can run again', async () => {
    const db = freshDb();
    await ensureIndexes(db);
    await ensureIndexes(db);

    const processes = await db.collection(CollectionNames.processes).listIndexes().toArray();
    const byName = new Map(processes.map((i) => [i['name'] as string, i]));
    expect([...byName.keys()].sort()).toEqual(['_id_', 'claim', 'held', 'orderId_unique', 'owed', 'recent', 'sweep', 'ttl']);
    expect(byName.get('held')).toMatchObject({ key: { heldFor: 1, updatedAt: 1 } });
    expect(byName.get('owed')).toMatchObject({ key: { outboxSince: 1 } });
    expect(byName.get('orderId_unique')).toMatchObject({ key: { orderId: 1 }, unique: true });
    expect(byName.get('claim')).toMatchObject({ key: { state: 1, notBefore: 1 } });
    expect(byName.get('sweep')).toMatchObject({ key: { state: 1, completeBy: 1 } });
    expect(byName.get('recent')).toMatchObject({ key: { updatedAt: -1 } });
    expect(byName.get('ttl')).toMatchObject({ key: { deleteTime: 1 }, expireAfterSeconds: 0 });
    const events = await db.collection(CollectionNames.processEvents).listIndexes().toArray();
    expect(events.map((i) => i['name']).sort()).toEqual(['_id_', 'byProcess', 'ttl']);
  });

  it('lets the TTL index remove a process whose deleteTime has passed, and only that one', async () => {
    const db = freshDb();
    await ensureIndexes(db);
    const store = new MongoProcessStore(db);
    // The TTL monitor compares with the server's wall clock, so these times are real ones.
    await store.insert(
      processDoc('finished', { state: 'Processed', deleteTime: new Date(Date.now() - 1000) }),
    );
    await store.insert(
      processDoc('retained', { state: 'Processed', deleteTime: new Date(Date.now() + 3_600_000) }),
    );
    await store.insert(processDoc('running', { deleteTime: null }));

    // A real mongod's TTL monitor runs once a minute; the embedded one here every 200 ms.
    await stack.waitFor(async () => (await store.get('finished')) === null, {
      timeoutMs: 90_000,
      description: 'the TTL index to remove the finished process',
    });
    expect(await store.get('retained')).not.toBeNull();
    expect(await store.get('running')).not.toBeNull();
  });
});

describe('LeaseRepository', () => {
  const TTL = 3000;
  const at = (ms: number): Date => new Date(T0 + ms);

  it('has one holder at a time, renewed by that holder, taken over only after it expires', async () => {
    const leases = new LeaseRepository(freshDb());

    expect(await leases.acquire('sweep', 'a', at(0), TTL)).toBe(true);
    expect(await leases.acquire('sweep', 'b', at(1000), TTL)).toBe(false);
    // Renewal at 2000 holds the lease until 5000, past the first expiry at 3000.
    expect(await leases.acquire('sweep', 'a', at(2000), TTL)).toBe(true);
    expect(await leases.acquire('sweep', 'b', at(4999), TTL)).toBe(false);
    expect(await leases.acquire('sweep', 'b', at(5000), TTL)).toBe(true);
    expect(await leases.acquire('sweep', 'a', at(5001), TTL)).toBe(false);
  });

  it('keeps leases of different names apart', async () => {
    const leases = new LeaseRepository(freshDb());

    expect(await leases.acquire('sweep', 'a', at(0), TTL)).toBe(true);
    expect(await leases.acquire('other', 'b', at(0), TTL)).toBe(true);
  });

  it('lets another holder take a released lease at once, and ignores a release by a non-holder', async () => {
    const leases = new LeaseRepository(freshDb());
    await leases.acquire('sweep', 'a', at(0), TTL);
    await leases.release('sweep', 'b');

    expect(await leases.acquire('sweep', 'b', at(1), TTL)).toBe(false);
    await leases.release('sweep', 'a');
    expect(await leases.acquire('sweep', 'b', at(2), TTL)).toBe(true);
  });

  it('grants the lease to exactly one of 10 holders acquiring at once', async () => {
    const leases = new LeaseRepository(freshDb());
    const holders = Array.from({ length: 10 }, (_, i) => `holder-${i}`);
    const results = await Promise.all(holders.map((h) => leases.acquire('sweep', h, at(0), TTL)));

    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = holders[results.indexOf(true)] ?? '';
    expect(await leases.acquire('sweep', winner, at(1), TTL)).toBe(true);
    for (const loser of holders.filter((h) => h !== winner))
      expect(await leases.acquire('sweep', loser, at(1), TTL)).toBe(false);
  });
});

// Agents' pauses: the in-memory store is held to the MongoDB one by the same tests.
describe.each<[string, () => AgentPauseStore]>([
  ['MongoAgentPauseStore', () => new MongoAgentPauseStore(freshDb())],
  ['InMemoryAgentPauseStore', () => new InMemoryAgentPauseStore()],
])('%s', (_name, open) => {
  const pause = (revision: number, paused = true) => ({ _id: 'payment', paused, by: 'alice', reason: 'maintenance', since: new Date(T0), revision, history: [] });

  it('inserts a first document once, then writes only over the expected revision', async () => {
    const store = open();
    expect(await store.write(pause(0), null)).toEqual({ ok: true });
    expect(await store.write(pause(0), null)).toEqual({ ok: false, reason: 'conflict' });
    expect(await store.write(pause(1, false), 5)).toEqual({ ok: false, reason: 'conflict' });
    expect(await store.write(pause(1, false), 0)).toEqual({ ok: true });
    expect(await store.get('payment')).toEqual(pause(1, false));
    expect(await store.list()).toEqual([pause(1, false)]);
    expect(await store.get('shipping')).toBeNull();
  });

  it('lets exactly one of two concurrent writes over the same revision win', async () => {
    const store = open();
    await store.write(pause(0), null);
    const results = await Promise.all([store.write({ ...pause(1, false), by: 'a' }, 0), store.write({ ...pause(1, false), by: 'b' }, 0)]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });
});
