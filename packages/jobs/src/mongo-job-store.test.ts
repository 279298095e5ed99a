import type { JobSpecificationDocument } from '@sas/contracts';
import { TestStack, uniqueName } from '@sas/testkit';
import type { MongoClient } from 'mongodb';
import { ensureJobIndexes } from './ensure-job-indexes';
import type { JobStore } from './job-store';
import { MongoJobStore } from './mongo-job-store';
import { newJobDocument } from './new-job-document';
import { statusEntry } from './status-entry';
import { InMemoryJobStore } from './in-memory-job-store';
import { jobSpec } from './test-support/job-spec';
import { validateJobSpecification } from './validate-job-specification';

const T0 = new Date('2030-01-01T00:00:00Z');
const at = (s: number): Date => new Date(T0.getTime() + s * 1000);

let stack: TestStack;
let client: MongoClient;

beforeAll(async () => {
  stack = await TestStack.start({ name: 'mongo-job-store', mongo: { ttlIntervalMs: 200 } });
  client = await stack.mongoClient();
});
afterAll(() => stack?.stop());

function doc(key: string, expression = '*/10 * * * * *'): JobSpecificationDocument {
  const spec = validateJobSpecification(jobSpec({ jobSpecificationKey: key, schedulingSpecification: expression }));
  if (!spec.ok) throw new Error(spec.issues.join());
  const built = newJobDocument(spec.spec, `id-${key}`, T0);
  if (!built.ok) throw new Error(built.reason);
  return built.doc;
}

const created = (job: JobSpecificationDocument): ReturnType<typeof statusEntry> =>
  statusEntry({ job, status: 'SCHEDULED', at: T0, revision: 0, by: 'test', deleteTime: null });
const inFlight = (fireTime: Date, by = 'runner-a'): NonNullable<JobSpecificationDocument['inFlight']> => ({
  fireTime,
  by,
  claimedAt: fireTime,
  late: false,
  lateByMs: 0,
  missedSince: null,
});

const stores: [string, () => Promise<JobStore>][] = [
  ['in memory', async () => new InMemoryJobStore()],
  [
    'on MongoDB',
    async () => {
      const db = client.db(uniqueName('jobs'));
      await ensureJobIndexes(db);
      return new MongoJobStore(db);
    },
  ],
];

describe.each(stores)('the job store %s', (_name, open) => {
  let store: JobStore;
  beforeEach(async () => {
    store = await open();
  });

  it('refuses a second job with the same key', async () => {
    const a = doc('a');
    expect(await store.insert(a, created(a))).toEqual({ ok: true });
    const again = { ...doc('a'), _id: 'other-id' };
    expect(await store.insert(again, created(again))).toEqual({ ok: false, reason: 'duplicate' });
    expect(await store.countScheduled()).toBe(1);
  });

  it('lets exactly one claim win per revision, and none on a canceled job', async () => {
    const a = doc('a');
    await store.insert(a, created(a));
    const claim = { nextFireTime: at(20), lastFireTime: at(10), inFlight: inFlight(at(10)), now: at(10) };
    expect(await store.claimFiring(a._id, 0, claim)).toBe(true);
    expect(await store.claimFiring(a._id, 0, { ...claim, inFlight: inFlight(at(10), 'runner-b') })).toBe(false);
    expect((await store.getByKey('a'))?.inFlight?.by).toBe('runner-a');
    expect(await store.cancel('a', at(100), at(11))).toMatchObject({ status: 'CANCELED', revision: 2 });
    expect(await store.claimFiring(a._id, 2, claim)).toBe(false);
  });

  it('finds due jobs earliest first, without the ones in flight or canceled, and in-flight ones that are stale or due for a retry', async () => {
    for (const key of ['a', 'b', 'c', 'd', 'e']) {
      const j = { ...doc(key), nextFireTime: at({ a: 5, b: 3, c: 50, d: 4, e: 2 }[key] ?? 0) };
      await store.insert(j, created(j));
    }
    await store.claimFiring('id-d', 0, { nextFireTime: at(20), lastFireTime: at(4), inFlight: inFlight(at(4)), now: at(4) });
    await store.claimFiring('id-e', 0, { nextFireTime: at(20), lastFireTime: at(2), inFlight: inFlight(at(2)), now: at(2) });
    const deferral = { attempts: 2, retryAt: at(8), sent: false, failedReason: null, lastError: 'redis down' };
    expect(await store.deferFiring('id-e', at(2), 'runner-b', deferral, at(3))).toBe(false);
    expect(await store.deferFiring('id-e', at(2), 'runner-a', deferral, at(3))).toBe(true);
    await store.cancel('a', at(100), at(1));
    expect((await store.findDue(at(10), 10)).map((j) => j.jobSpecificationKey)).toEqual(['b']);
    const retry = async (now: number, claimedBefore: number): Promise<string[]> =>
      (await store.findInFlightToRetry(at(now), at(claimedBefore), 10)).map((j) => j.jobSpecificationKey);
    expect(await retry(7, 3)).toEqual([]);
    expect(await retry(7, 4)).toEqual(['d']);
    // A planned retry waits for its retryAt, however long ago the firing was claimed.
    expect(await retry(8, 3)).toEqual(['e']);
    expect((await store.getByKey('e'))?.inFlight).toMatchObject({ fireTime: at(2), by: 'runner-a', attempts: 2, retryAt: at(8), sent: false, lastError: 'redis down' });
  });

  it('settles only the firing in flight, and never revives a job canceled meanwhile', async () => {
    const a = doc('a');
    await store.insert(a, created(a));
    await store.claimFiring(a._id, 0, { nextFireTime: null, lastFireTime: at(10), inFlight: inFlight(at(10)), now: at(10) });
    expect(await store.settleFiring(a._id, at(10), 'runner-b', null, at(11))).toBeNull();
    await store.cancel('a', at(100), at(11));
    const settled = await store.settleFiring(a._id, at(10), 'runner-a', { status: 'TRIGGERED', deleteTime: at(200) }, at(12));
    expect(settled).toMatchObject({ status: 'CANCELED', inFlight: null, deleteTime: at(100) });

    const b = doc('b');
    await store.insert(b, created(b));
    await store.claimFiring(b._id, 0, { nextFireTime: null, lastFireTime: at(10), inFlight: inFlight(at(10)), now: at(10) });
    expect(await store.settleFiring(b._id, at(10), 'runner-a', { status: 'TRIGGERED', deleteTime: at(200) }, at(12))).toMatchObject({
      status: 'TRIGGERED',
      nextFireTime: null,
      inFlight: null,
      deleteTime: at(200),
      revision: 2,
    });
  });

  it('appends each status entry once, orders history by time then revision, and expires all but the kept ones', async () => {
    const a = doc('a');
    await store.insert(a, created(a));
    const failed = statusEntry({ job: a, status: 'FAILED', at: at(10), revision: 1, by: 'r', deleteTime: null, fireTime: at(10), reason: 'x' });
    const scheduled = statusEntry({ job: a, status: 'SCHEDULED', at: at(10), revision: 2, by: 'r', deleteTime: null, fireTime: at(10) });
    await store.appendStatuses([scheduled, failed]);
    await store.appendStatuses([scheduled]);
    await store.expireStatuses(a._id, [failed._id, scheduled._id], at(10));
    const history = await store.statusHistory(a._id);
    expect(history.map((e) => [e.executionStatus, e.deleteTime])).toEqual([
      ['SCHEDULED', at(10)],
      ['FAILED', null],
      ['SCHEDULED', null],
    ]);
  });

  it('lists by requestor, unfinished unless asked', async () => {
    const a = { ...doc('a'), jobRequestor: 'x' };
    const b = { ...doc('b'), jobRequestor: 'y' };
    await store.insert(a, created(a));
    await store.insert(b, created(b));
    await store.cancel('a', at(100), at(1));
    expect((await store.list({})).map((j) => j.jobSpecificationKey)).toEqual(['b']);
    expect((await store.list({ requestor: 'x', includeFinished: true })).map((j) => j.jobSpecificationKey)).toEqual(['a']);
  });
});

describe('the job store on MongoDB with its TTL index', () => {
  it('removes a finished job and its history once their deleteTime has passed', async () => {
    const db = client.db(uniqueName('jobs-ttl'));
    await ensureJobIndexes(db);
    const store = new MongoJobStore(db);
    const a = doc('a');
    await store.insert(a, created(a));
    const past = new Date(Date.now() - 1000);
    await store.cancel('a', past, past);
    await store.expireStatuses(a._id, [], past);
    await stack.waitFor(async () => (await store.getByKey('a')) === null && (await store.statusHistory(a._id)).length === 0, {
      timeoutMs: 10_000,
      description: 'the TTL monitor to remove the canceled job and its history',
    });
  });
});
