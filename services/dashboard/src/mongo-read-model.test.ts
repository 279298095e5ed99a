import type { MongoClient } from 'mongodb';
import type { BreakerStateDocument, ProcessDocument, ProcessEventEntry } from '@sas/contracts';
import { CollectionNames } from '@sas/store';
import { TestStack } from '@sas/testkit';
import { MongoReadModel, NO_VALUE } from './mongo-read-model';
import { historyEntry, processDoc } from './test-support/process-doc';

describe('reading processes from MongoDB', () => {
  let stack: TestStack;
  let client: MongoClient;
  let model: MongoReadModel;
  const at = (s: number): Date => new Date(Date.UTC(2025, 0, 1, 0, 0, s));

  beforeAll(async () => {
    stack = await TestStack.start({ name: 'dashboard-read-model' });
    client = await stack.mongoClient();
    const db = client.db();
    model = new MongoReadModel(db);
    const p = [
      processDoc({ _id: 'p1', orderId: 'A-1', state: 'Processed', updatedAt: at(1) }),
      processDoc({ _id: 'p2', orderId: 'A-2', state: 'Error', workflow: 'fast-manual', updatedAt: at(3) }),
      processDoc({ _id: 'p3', orderId: 'A-3', state: 'Processed', updatedAt: at(2) }),
      processDoc({ _id: 'p4', orderId: 'A-4', state: 'Processed', updatedAt: at(2) }),
    ];
    await db.collection<ProcessDocument>(CollectionNames.processes).insertMany(p);
    await db.collection<ProcessEventEntry>(CollectionNames.processEvents).insertMany([
      historyEntry(p[1]!, { at: at(2), from: 'Pending', to: 'Processing', why: 'claimed', attempt: 1 }),
      historyEntry(p[1]!, { at: at(1) }),
      historyEntry(p[0]!, { at: at(1), why: 'other process' }),
    ]);
    const breaker: BreakerStateDocument = { _id: 'payment/a', agent: 'payment', instanceId: 'a', state: 'open', retryAt: at(9), updatedAt: at(5), deleteTime: new Date(Date.now() + 3_600_000) };
    await db.collection<BreakerStateDocument>(CollectionNames.agentBreakers).insertOne(breaker);
  });
  afterAll(() => stack?.stop());

  it('lists the last updated first, the id breaking ties, up to the limit', async () => {
    expect((await model.list({ limit: 3 })).map((p) => p._id)).toEqual(['p2', 'p4', 'p3']);
  });

  it('filters by state, workflow, orderId and before', async () => {
    expect((await model.list({ limit: 50, state: 'Processed' })).map((p) => p._id)).toEqual(['p4', 'p3', 'p1']);
    expect((await model.list({ limit: 50, workflow: 'fast-manual' })).map((p) => p._id)).toEqual(['p2']);
    expect((await model.list({ limit: 50, orderId: 'A-3' })).map((p) => p._id)).toEqual(['p3']);
    expect((await model.list({ limit: 50, before: { at: at(2) } })).map((p) => p._id)).toEqual(['p1']);
  });

  it('pages through processes updated in the same millisecond without skipping any', async () => {
    const first = await model.list({ limit: 2 });
    expect(first.map((p) => p._id)).toEqual(['p2', 'p4']);
    const second = await model.list({ limit: 2, before: { at: first[1]!.updatedAt, id: first[1]!._id } });
    expect(second.map((p) => p._id)).toEqual(['p3', 'p1']);
  });

  it('finds a process by id, then by orderId, and null when neither matches', async () => {
    expect((await model.find('p2'))?.orderId).toBe('A-2');
    expect((await model.find('A-2'))?._id).toBe('p2');
    expect(await model.find('nope')).toBeNull();
  });

  it('reads one process’s history oldest first', async () => {
    expect((await model.history('p2')).map((h) => h.why)).toEqual(['submitted', 'claimed']);
  });

  it('counts processes by state and by workflow', async () => {
    expect(await model.countBy('state')).toEqual({ Processed: 3, Error: 1 });
    expect(await model.countBy('workflow')).toEqual({ 'order-fulfilment': 3, 'fast-manual': 1 });
    expect(NO_VALUE).toBe('(none)');
  });

  it('counts processes by workflow and state with count queries', async () => {
    const counts = await model.countByWorkflowAndState();
    expect(counts.sort((a, b) => a.workflow.localeCompare(b.workflow))).toEqual([
      { workflow: 'fast-manual', state: 'Error', count: 1 },
      { workflow: 'order-fulfilment', state: 'Processed', count: 3 },
    ]);
  });

  it('reads breaker states and answers a ping', async () => {
    expect(await model.breakers()).toEqual([expect.objectContaining({ _id: 'payment/a', state: 'open', retryAt: at(9) })]);
    await expect(model.ping()).resolves.toBeUndefined();
  });
});
