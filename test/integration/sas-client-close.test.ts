import { SasClient } from '@sas/client';
import { startRedis, type RedisServer } from '@sas/stack';
import { uniqueName, waitFor } from '@sas/testkit';

// A client whose Redis is gone: BullMQ's own closes wait for a connection that never comes back.
describe('when the client closes after its Redis is gone', () => {
  let redis: RedisServer | undefined;
  afterEach(async () => {
    if (redis?.pid !== undefined) process.kill(redis.pid, 'SIGCONT');
    await redis?.stop();
    redis = undefined;
  });

  // Killed: the connections see it closed. Frozen: the link stays open and nothing answers (a half-open
  // link, a Redis stalled), so the connections still look ready and a clean close waits on QUIT.
  it.each([
    ['killed (kill -9)', (server: RedisServer) => server.kill('SIGKILL')],
    ['frozen (SIGSTOP)', async (server: RedisServer) => void process.kill(server.pid ?? 0, 'SIGSTOP')],
  ])('returns from close() when Redis was %s, having ended its statuses loops', async (_how, takeAway) => {
    redis = await startRedis();
    const client = new SasClient({ redisUrl: redis.url, prefix: uniqueName('close'), replyTo: 'app.status', closeTimeoutMs: 1_000, onError: () => undefined });
    await client.submit({ orderId: 'o-1', workflow: 'order-fulfilment', payload: { sku: 'kettle', quantity: 1, amount: 2500 } });
    // Resolves once the client listens, so the loop below subscribes to a running stream.
    await client.onStatus(() => undefined);
    let loopEnded = false;
    const loop = (async () => {
      for await (const _event of client.statuses('o-1')) {
        // nothing arrives: no system runs here
      }
      loopEnded = true;
    })();
    // One turn of the event loop: the loop's listen() resolves at once and it subscribes.
    await new Promise((resolve) => setImmediate(resolve));
    await takeAway(redis);

    let closed = false;
    const closing = client.close().then(() => (closed = true));
    await waitFor(() => closed, { timeoutMs: 15_000, description: 'close() to return with Redis gone' });
    await closing;
    await loop;
    expect(loopEnded).toBe(true);
  });
});
