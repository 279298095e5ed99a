import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Bus, PromBusMetrics } from '@sas/bus';
import { QueueNames } from '@sas/contracts';
import { createMetricsRegistry, systemClock } from '@sas/runtime';
import { startRedis, type RedisServer } from '@sas/stack';
import { scrapeMetrics, uniqueName } from '@sas/testkit';
import { pino } from 'pino';
import { createDashboardApp } from './dashboard-app';
import { DashboardCredentials } from './dashboard-credentials';
import { systemQueueNames } from './queue-catalog';
import { FakeCommandSender } from './test-support/fake-command-sender';
import { FakeReadModel } from './test-support/fake-read-model';
import { processDoc } from './test-support/process-doc';
import { InMemoryAuditLog } from './test-support/in-memory-audit-log';

describe("the dashboard's /metrics (fake store, private Redis)", () => {
  let redis: RedisServer;
  let bus: Bus;
  let server: Server;
  let url: string;
  const readModel = new FakeReadModel();

  beforeAll(async () => {
    redis = await startRedis();
    const registry = createMetricsRegistry();
    bus = new Bus({ redisUrl: redis.url, prefix: uniqueName('dashboard-metrics'), instanceId: 'test', logger: pino({ level: 'silent' }), clock: systemClock, metrics: new PromBusMetrics(registry) });
    const app = createDashboardApp({
      audit: new InMemoryAuditLog(),
      readModel,
      alerts: { newest: async () => [] },
      queues: systemQueueNames(['payment']).map((n) => bus.queue(n)),
      commands: new FakeCommandSender(),
      auth: new DashboardCredentials([{ role: 'operator', name: 'alice', token: 'a6ecff892b26155db43753179423b482' }]),
      logger: pino({ level: 'silent' }),
      redisReady: () => bus.isReady(),
      instanceId: 'dashboard-test',
      queuePrefix: 'sas-test',
      metrics: registry,
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await bus?.close();
    await redis?.stop();
  });

  it('counts processes by workflow and state, without a token', async () => {
    readModel.processes = [
      processDoc({ _id: 'p1', state: 'Processed' }),
      processDoc({ _id: 'p2', state: 'Processed' }),
      processDoc({ _id: 'p3', state: 'Error', workflow: 'fast-manual' }),
    ];
    const page = await scrapeMetrics(url);
    expect(page.family('sas_processes')).toMatchObject({ type: 'gauge', help: expect.stringMatching(/by workflow and state/) });
    expect(page.total('sas_processes', { workflow: 'order-fulfilment', state: 'Processed' })).toBe(2);
    expect(page.total('sas_processes', { workflow: 'fast-manual', state: 'Error' })).toBe(1);

    readModel.processes.push(processDoc({ _id: 'p4', state: 'Processing' }));
    expect((await scrapeMetrics(url)).total('sas_processes', { state: 'Processing' })).toBe(1);
  });

  it('reads every queue’s depth by state at each scrape', async () => {
    const depth = async (queue: string, state: string): Promise<number> => (await scrapeMetrics(url)).total('sas_queue_jobs', { queue, state });
    expect(await depth(QueueNames.agentRequests('payment'), 'waiting')).toBe(0);
    await bus.send(QueueNames.agentRequests('payment'), { any: 1 });
    await bus.send(QueueNames.agentRequests('payment'), { any: 2 });
    await bus.send(QueueNames.submission, { any: 3 }, { delayMs: 60_000 });
    expect(await depth(QueueNames.agentRequests('payment'), 'waiting')).toBe(2);
    expect(await depth(QueueNames.submission, 'delayed')).toBe(1);
    const states = (await scrapeMetrics(url)).series('sas_queue_jobs', { queue: QueueNames.alerts }).map((s) => s.labels['state']);
    expect(states).toEqual(['waiting', 'prioritized', 'delayed', 'active', 'failed']);
  });

  it('counts dead letters by queue and kind, a handler’s own refusal included', async () => {
    await bus.deadLetter({ queue: QueueNames.submission, reason: 'unknown workflow', issues: [], original: {} });
    await bus.deadLetter({ queue: QueueNames.submission, reason: 'invalid message on submission', kind: 'invalid', issues: ['x'], original: {} });
    const page = await scrapeMetrics(url);
    expect(page.family('sas_dead_letters_total').type).toBe('counter');
    expect(page.total('sas_dead_letters_total', { queue: QueueNames.submission, kind: 'refused' })).toBe(1);
    expect(page.total('sas_dead_letters_total', { queue: QueueNames.submission, kind: 'invalid' })).toBe(1);
  });

  it('leaves the process gauge out while the store fails, and still answers the scrape', async () => {
    readModel.failure = new Error('store unreachable');
    try {
      const page = await scrapeMetrics(url);
      expect(page.series('sas_processes')).toEqual([]);
      expect(page.family('sas_queue_jobs').series.length).toBeGreaterThan(0);
    } finally {
      readModel.failure = undefined;
    }
  });
});
