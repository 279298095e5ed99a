import { startRedis, type RedisServer } from '@sas/stack';
import { QueueCollector, uniqueName } from '@sas/testkit';
import { Queue } from 'bullmq';
import { queueKeyPrefix } from '@sas/contracts';

describe('QueueCollector', () => {
  let redis: RedisServer;

  beforeAll(async () => {
    redis = await startRedis();
  });

  afterAll(async () => {
    await redis.stop();
  });

  it('collects the data of every job added to its queue, in order', async () => {
    const prefix = uniqueName('collector');
    const queue = new Queue('app.status', { connection: { url: redis.url }, prefix: queueKeyPrefix(prefix, 'app.status') });
    const collector = new QueueCollector<{ orderId: string; status: string }>({
      redisUrl: redis.url,
      prefix,
      queue: 'app.status',
    });
    try {
      await collector.start();
      await queue.add('status', { orderId: 'o-1', status: 'Received' });
      await queue.add('status', { orderId: 'o-1', status: 'Processing' });
      await queue.add('status', { orderId: 'o-1', status: 'Processed' });
      const messages = await collector.waitForCount(3, 10_000);
      expect(messages.map((m) => m.status)).toEqual(['Received', 'Processing', 'Processed']);
      expect(collector.errors).toEqual([]);
    } finally {
      await collector.close();
      await queue.close();
    }
  });

  it('only sees jobs under its own prefix', async () => {
    const mine = uniqueName('collector');
    const other = new Queue('alerts', { connection: { url: redis.url }, prefix: queueKeyPrefix(uniqueName('other'), 'alerts') });
    const own = new Queue('alerts', { connection: { url: redis.url }, prefix: queueKeyPrefix(mine, 'alerts') });
    const collector = new QueueCollector({ redisUrl: redis.url, prefix: mine, queue: 'alerts' });
    try {
      await collector.start();
      await other.add('alert', { from: 'other' });
      await own.add('alert', { from: 'mine' });
      await collector.waitForCount(1, 10_000);
      // The other prefix's job must still be waiting: nobody consumed it.
      expect(await other.getWaitingCount()).toBe(1);
      expect(collector.messages).toEqual([{ from: 'mine' }]);
    } finally {
      await collector.close();
      await Promise.all([other.close(), own.close()]);
    }
  });

  it('says how many messages arrived when it times out, and closes more than once', async () => {
    const prefix = uniqueName('collector');
    const queue = new Queue('alerts', { connection: { url: redis.url }, prefix: queueKeyPrefix(prefix, 'alerts') });
    const collector = new QueueCollector({ redisUrl: redis.url, prefix, queue: 'alerts' });
    try {
      await collector.start();
      await queue.add('alert', { n: 1 });
      await collector.waitForCount(1, 10_000);
      await expect(collector.waitForCount(2, 150)).rejects.toThrow(
        'Timed out after 150 ms waiting for 2 message(s) on queue \'alerts\'; last value: false\n1 message(s) so far: [{"n":1}]',
      );
    } finally {
      await collector.close();
      await collector.close();
      await queue.close();
    }
  });
});
