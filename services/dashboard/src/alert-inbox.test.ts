import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Bus } from '@sas/bus';
import { QueueNames, type Alert, type DeadLetterEntry } from '@sas/contracts';
import { systemClock, type Clock } from '@sas/runtime';
import { TestStack } from '@sas/testkit';
import { MongoClient, type Collection, type Db } from 'mongodb';
import { pino } from 'pino';
import { alertConsumerSpec } from './alert-consumer-spec';
import { AlertInbox } from './alert-inbox';
import type { AlertRecord } from './alert-record';
import { createDashboardApp } from './dashboard-app';
import { DashboardCredentials } from './dashboard-credentials';
import { ALERTS_COLLECTION, MongoAlertStore } from './mongo-alert-store';
import { MongoReadModel } from './mongo-read-model';
import { systemQueueNames } from './queue-catalog';
import { FakeCommandSender } from './test-support/fake-command-sender';
import { InMemoryAuditLog } from './test-support/in-memory-audit-log';

const DAY = 24 * 60 * 60 * 1000;
const silent = pino({ level: 'silent' });

const alert = (orderId: string, extra: Partial<Alert> = {}): Alert => ({
  schemaVersion: 1,
  kind: 'ThresholdReached',
  processId: `p-${orderId}`,
  orderId,
  step: 'reserve-inventory',
  failureCount: 3,
  reason: `reserve-inventory of ${orderId} failed 3 times`,
  at: 1_735_689_600_000,
  ...extra,
});

/** A clock the test moves: each dashboard instance reads it when an alert arrives. */
const fixedClock = (start: string): Clock & { advance(ms: number): void } => {
  let now = Date.parse(start);
  return { now: () => now, advance: (ms) => void (now += ms) };
};


const VIEWER_TOKEN = 'bbf699a08206fa05877d9c01aa1b284a';
const AS_VIEWER = { authorization: `Bearer ${VIEWER_TOKEN}` };
describe('storing the alerts the dashboard consumes (embedded MongoDB, private Redis)', () => {
  let stack: TestStack;
  let db: Db;
  let alerts: Collection<AlertRecord>;
  let store: MongoAlertStore;

  beforeAll(async () => {
    // The TTL monitor runs every 500 ms, so an expired alert disappears within the test's deadline.
    stack = await TestStack.start({ name: 'dashboard-alerts', mongo: { ttlIntervalMs: 500 } });
    db = (await stack.mongoClient()).db();
    alerts = db.collection<AlertRecord>(ALERTS_COLLECTION);
    store = new MongoAlertStore(db);
    await store.ensureIndexes();
  });
  afterAll(() => stack?.stop());
  beforeEach(() => alerts.deleteMany({}));

  describe('when the same alert job is delivered twice', () => {
    it('stores one document and keeps the first receipt', async () => {
      const clock = fixedClock('2025-01-01T00:00:00.000Z');
      const inbox = new AlertInbox({ store, clock, logger: silent, retentionMs: 30 * DAY });
      expect(await inbox.receive(alert('A-1'), { jobId: 'p-A-1.4.0' })).toBe('stored');
      clock.advance(5_000);
      expect(await inbox.receive(alert('A-1'), { jobId: 'p-A-1.4.0' })).toBe('duplicate');
      expect(await alerts.find().toArray()).toEqual([
        { _id: 'p-A-1.4.0', alert: alert('A-1'), receivedAt: new Date('2025-01-01T00:00:00.000Z'), deleteTime: new Date('2025-01-31T00:00:00.000Z') },
      ]);
    });
  });

  describe('when two dashboards receive the same job at once', () => {
    it('stores it once: one of them is told it is a duplicate', async () => {
      const other = await MongoClient.connect(stack.env['MONGO_URL']!);
      try {
        const otherStore = new MongoAlertStore(other.db(stack.dbName));
        const clock = fixedClock('2025-01-01T00:00:00.000Z');
        const first = new AlertInbox({ store, clock, logger: silent, retentionMs: DAY });
        const second = new AlertInbox({ store: otherStore, clock, logger: silent, retentionMs: DAY });
        const outcomes = await Promise.all([first.receive(alert('A-2'), { jobId: 'p-A-2.7.0' }), second.receive(alert('A-2'), { jobId: 'p-A-2.7.0' })]);
        expect(outcomes.sort()).toEqual(['duplicate', 'stored']);
        expect(await alerts.countDocuments({})).toBe(1);
      } finally {
        await other.close();
      }
    });
  });

  it('lists the most recently received first, the id breaking ties, up to the limit', async () => {
    const clock = fixedClock('2025-01-01T00:00:00.000Z');
    const inbox = new AlertInbox({ store, clock, logger: silent, retentionMs: DAY });
    await inbox.receive(alert('B-1'), { jobId: 'b1' });
    clock.advance(1_000);
    await inbox.receive(alert('B-2'), { jobId: 'b2' });
    await inbox.receive(alert('B-3'), { jobId: 'b3' });
    expect((await store.newest(2)).map((r) => r._id)).toEqual(['b3', 'b2']);
    expect((await store.newest(50)).map((r) => r._id)).toEqual(['b3', 'b2', 'b1']);
  });

  it('has MongoDB remove an alert once its retention has passed', async () => {
    const indexes = await alerts.listIndexes().toArray();
    expect(indexes).toContainEqual(expect.objectContaining({ name: 'ttl', key: { deleteTime: 1 }, expireAfterSeconds: 0 }));
    const inbox = new AlertInbox({ store, clock: systemClock, logger: silent, retentionMs: 1 });
    await inbox.receive(alert('C-1'), { jobId: 'c1' });
    await stack.waitFor(async () => (await alerts.countDocuments({ _id: 'c1' })) === 0, { timeoutMs: 10_000, description: 'the expired alert to be removed by the TTL monitor' });
  });

  it('refuses a retention that is not a positive whole number of ms, naming the variable', () => {
    expect(() => new AlertInbox({ store, clock: systemClock, logger: silent, retentionMs: 0 })).toThrow(
      'AlertInbox retentionMs must be a positive whole number of ms (got 0); set ALERTS_RETENTION_MS',
    );
  });

  describe('consuming the alerts queue and answering GET /api/alerts', () => {
    let bus: Bus;
    let server: Server;
    let base: string;

    beforeAll(async () => {
      bus = new Bus({ redisUrl: stack.env['REDIS_URL']!, prefix: stack.queuePrefix, instanceId: 'dashboard-test', logger: silent, clock: systemClock });
      bus.consume(alertConsumerSpec(new AlertInbox({ store, clock: systemClock, logger: silent, retentionMs: DAY })));
      const app = createDashboardApp({
        audit: new InMemoryAuditLog(),
        readModel: new MongoReadModel(db),
        alerts: store,
        queues: systemQueueNames(['inventory']).map((n) => bus.queue(n)),
        commands: new FakeCommandSender(),
        auth: new DashboardCredentials([{ role: 'viewer', token: VIEWER_TOKEN }]),
        logger: silent,
        redisReady: () => bus.isReady(),
        instanceId: 'dashboard-test',
        queuePrefix: stack.queuePrefix,
      });
      server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => server?.close(resolve));
      await bus?.close();
    });

    it('stores each alert under its job id and lists them through the API, newest first', async () => {
      await bus.send(QueueNames.alerts, alert('D-1'), { jobId: 'p-D-1.3.0' });
      await stack.waitFor(() => alerts.findOne({ _id: 'p-D-1.3.0' }), { timeoutMs: 10_000, description: 'the first alert stored' });
      await bus.send(QueueNames.alerts, alert('D-2', { kind: 'CompensationFailed' }), { jobId: 'p-D-2.5.1' });
      await stack.waitFor(() => alerts.findOne({ _id: 'p-D-2.5.1' }), { timeoutMs: 10_000, description: 'the second alert stored' });

      const res = await fetch(`${base}/api/alerts?limit=1`, { headers: AS_VIEWER });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { alerts: { id: string; receivedAt: string; data: Alert }[] };
      expect(body.alerts).toEqual([{ id: 'p-D-2.5.1', receivedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), data: alert('D-2', { kind: 'CompensationFailed' }) }]);
      expect(((await (await fetch(`${base}/api/alerts`, { headers: AS_VIEWER })).json()) as { alerts: { id: string }[] }).alerts.map((a) => a.id)).toEqual(['p-D-2.5.1', 'p-D-1.3.0']);
      // Consumed, not left waiting in the queue for ever.
      await stack.waitFor(async () => (await bus.queue(QueueNames.alerts).getWaitingCount()) === 0, { timeoutMs: 10_000, description: 'no alert left waiting' });
    });

    it('dead-letters a malformed alert with what is wrong, and stores nothing for it', async () => {
      await bus.send(QueueNames.alerts, { schemaVersion: 1, kind: 'Mystery', at: 'yesterday' }, { jobId: 'bad-1' });
      const dead = await stack.waitFor(
        async () => (await bus.queue(QueueNames.deadLetter).getJobs(['waiting'])).find((j) => (j.data as DeadLetterEntry).queue === QueueNames.alerts),
        { timeoutMs: 10_000, description: 'the malformed alert in the dead-letter queue' },
      );
      const entry = dead.data as DeadLetterEntry;
      expect(entry).toMatchObject({ reason: 'invalid message on alerts', original: { kind: 'Mystery', at: 'yesterday' }, rejectedBy: 'dashboard-test' });
      expect(entry.issues?.join('\n')).toMatch(/kind/);
      expect(entry.issues?.join('\n')).toMatch(/reason/);
      expect(await alerts.countDocuments({ _id: 'bad-1' })).toBe(0);
    });
  });
});
