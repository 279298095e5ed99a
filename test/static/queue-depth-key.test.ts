import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { QueueNames } from '@sas/contracts';
import { startRedis, type RedisServer } from '@sas/stack';
import { at, mapsAt, readManifests } from './k8s-manifests';

/**
 * The KEDA example scales agent-payment on the length of one Redis list. A wrong key name would
 * not fail anywhere: KEDA would read an empty list and never scale. So this puts jobs on the
 * agent's queue with real BullMQ, with the prefix from the ConfigMap, and reads the key the
 * ScaledObject names.
 */

const configMap = readManifests().find((m) => m.kind === 'ConfigMap' && m.name === 'sas-common');
const prefix = String(at(configMap?.doc, 'data.QUEUE_PREFIX'));
const scaledObject = readManifests('keda').find((m) => m.kind === 'ScaledObject' && m.name === 'agent-payment');
const listName = String(at(mapsAt(scaledObject?.doc, 'spec.triggers')[0], 'metadata.listName'));

describe('the queue depth KEDA reads for agent-payment', () => {
  let redis: RedisServer;
  let client: Redis;
  let queue: Queue;

  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    queue = new Queue(QueueNames.agentRequests('payment'), { connection: { url: redis.url }, prefix });
  });

  afterAll(async () => {
    await queue?.close();
    client?.disconnect();
    await redis?.stop();
  });

  it('counts the jobs waiting on the agent.payment.requests queue', async () => {
    expect(await client.llen(listName)).toBe(0);
    await queue.addBulk([1, 2, 3].map((n) => ({ name: 'request', data: { n } })));
    expect(await client.type(listName)).toBe('list');
    expect(await client.llen(listName)).toBe(3);
  });

  it('keeps every key BullMQ wrote under the prefix’s hash tag, so Redis Cluster puts them in one slot', async () => {
    // Standalone Redis has no CLUSTER KEYSLOT; equal hash tags are what makes the slots equal.
    const keys = await client.keys('*');
    expect(keys.length).toBeGreaterThan(1);
    expect([...new Set(keys.map(hashTag))]).toEqual([hashTag(`${prefix}:x`)]);
    expect(hashTag(`${prefix}:x`)).not.toBe(`${prefix}:x`);
  });
});

/** The part of a key Redis Cluster hashes: the first non-empty `{...}`, else the whole key. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  const close = open >= 0 ? key.indexOf('}', open + 1) : -1;
  return close > open + 1 ? key.slice(open + 1, close) : key;
}
