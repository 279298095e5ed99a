import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { QueueNames, queueKeyPrefix } from '@sas/contracts';
import { createLogger, createMetricsRegistry } from '@sas/runtime';
import { startRedis, type RedisServer } from '@sas/stack';
import { MetricsScrape } from '@sas/testkit';
import { QueueInspector, registerDashboardMetrics } from '@sas/dashboard';
import { at, mapsAt, readManifests } from './k8s-manifests';
import { evaluateQueueDepthQuery, parseQueueDepthQuery, type Sample } from './keda-query';

/**
 * The query KEDA scales agent-payment on, run against what the dashboard really exports. A wrong
 * label or state would fail nowhere else: KEDA would read a number that leaves out part of the
 * backlog, or an empty answer. So this puts jobs in every state on the agent's queue with real
 * BullMQ (prefix from the ConfigMap), scrapes the dashboard's gauges as Prometheus would, and
 * evaluates the ScaledObject's query on the scrape.
 */

const configMap = readManifests().find((m) => m.kind === 'ConfigMap' && m.name === 'sas-common');
const prefix = String(at(configMap?.doc, 'data.QUEUE_PREFIX'));
const scaledObject = readManifests('keda').find((m) => m.kind === 'ScaledObject' && m.name === 'agent-payment');
const query = parseQueueDepthQuery(String(at(mapsAt(scaledObject?.doc, 'spec.triggers')[0], 'metadata.query')));

describe('the queue depth KEDA reads for agent-payment', () => {
  let redis: RedisServer;
  let client: Redis;
  let queue: Queue;
  let worker: Worker;

  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    const connection = { url: redis.url };
    queue = new Queue(QueueNames.agentRequests('payment'), { connection, prefix: queueKeyPrefix(prefix, QueueNames.agentRequests('payment')) });
    // No processor: jobs are taken by hand, so each stays in the state the test puts it in.
    worker = new Worker(QueueNames.agentRequests('payment'), null, { connection, prefix: queueKeyPrefix(prefix, QueueNames.agentRequests('payment')), autorun: false });
  });

  afterAll(async () => {
    await worker?.close(true);
    await queue?.close();
    client?.disconnect();
    await redis?.stop();
  });

  /** The dashboard's sas_queue_jobs samples, scraped from its registry as Prometheus reads them. */
  async function scrape(): Promise<Sample[]> {
    const registry = createMetricsRegistry();
    registerDashboardMetrics(registry, {
      readModel: { countByWorkflowAndState: () => Promise.resolve([]) },
      inspector: new QueueInspector([queue]),
      logger: createLogger({ service: 'dashboard', instanceId: 'dashboard-test', level: 'silent' }),
    });
    return new MetricsScrape(await registry.metrics()).series('sas_queue_jobs');
  }

  it('counts requests waiting, prioritized and delayed, and not those being worked on or failed', async () => {
    expect(evaluateQueueDepthQuery(query, 'sas_queue_jobs', await scrape())).toBe(0);

    await queue.add('request', { n: 'active' });
    const active = await worker.getNextJob('token-active');
    await queue.add('request', { n: 'failed' });
    const failed = await worker.getNextJob('token-failed');
    await failed?.moveToFailed(new Error('remote refused'), 'token-failed');
    await queue.addBulk([
      { name: 'request', data: { n: 1 } },
      { name: 'request', data: { n: 2 } },
      { name: 'request', data: { n: 'urgent' }, opts: { priority: 1 } },
      { name: 'request', data: { n: 'retry later' }, opts: { delay: 600_000 } },
    ]);
    expect({ active: await active?.getState(), failed: await failed?.getState() }).toEqual({ active: 'active', failed: 'failed' });

    const samples = await scrape();
    const byState = Object.fromEntries(samples.filter((s) => s.labels['queue'] === 'agent.payment.requests').map((s) => [s.labels['state'], s.value]));
    expect(byState).toEqual({ waiting: 2, prioritized: 1, delayed: 1, active: 1, failed: 1 });
    expect(evaluateQueueDepthQuery(query, 'sas_queue_jobs', samples)).toBe(4);
  });

  it('counts each request once however many dashboard replicas Prometheus scrapes', async () => {
    const samples = await scrape();
    const one = evaluateQueueDepthQuery(query, 'sas_queue_jobs', samples);
    const two = [...samples, ...samples].map((s, i) => ({ ...s, labels: { ...s.labels, instance: i < samples.length ? 'dashboard-a' : 'dashboard-b' } }));
    expect(one).toBe(4);
    expect(evaluateQueueDepthQuery(query, 'sas_queue_jobs', two)).toBe(one);
    // Summed over replicas instead, every request would count twice.
    expect(evaluateQueueDepthQuery({ ...query, inner: 'sum' }, 'sas_queue_jobs', two)).toBe(8);
  });

  it('keeps every key BullMQ wrote for the queue under the prefix and the queue’s own hash tag, so Redis Cluster puts them in one slot', async () => {
    // Standalone Redis has no CLUSTER KEYSLOT; equal hash tags are what makes the slots equal.
    const keys = await client.keys('*');
    expect(keys.length).toBeGreaterThan(1);
    expect(keys.filter((k) => !k.startsWith(`${prefix}:`))).toEqual([]);
    expect([...new Set(keys.map(hashTag))]).toEqual(['agent.payment.requests']);
  });
});

/** The part of a key Redis Cluster hashes: the first non-empty `{...}`, else the whole key. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  const close = open >= 0 ? key.indexOf('}', open + 1) : -1;
  return close > open + 1 ? key.slice(open + 1, close) : key;
}
