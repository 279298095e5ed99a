import { spawnSync } from 'node:child_process';
import { Bus } from '@sas/bus';
import { QueueNames, SchedulerWakeup } from '@sas/contracts';
import { StallBoard, createLogger, systemClock, type Logger } from '@sas/runtime';
import { connectStore, type StoreConnection } from '@sas/store';
import { FaultProxy, TestStack, uniqueName, waitFor } from '@sas/testkit';

/** A logger that keeps every line, and the board that reports on it. */
function recording(): { lines: Record<string, unknown>[]; board: StallBoard; logger: Logger } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ service: 'watch', instanceId: 'watch-1', destination: { write: (s: string) => lines.push(JSON.parse(s) as Record<string, unknown>) } });
  return { lines, board: new StallBoard(logger, systemClock), logger };
}

/** The URL of `url`'s single host:port, through `proxy`. */
function through(url: string, proxy: FaultProxy): string {
  return url.replace(/\/\/([^@/]*@)?[^:/,?]+:\d+/, (_m, auth: string | undefined) => `//${auth ?? ''}127.0.0.1:${proxy.port}`);
}

describe('connection watches over a link that goes silent', () => {
  let stack: TestStack;
  let proxy: FaultProxy;

  beforeAll(async () => {
    stack = await TestStack.start({ name: 'partition-watches' });
  });
  afterEach(() => proxy?.stop());
  afterAll(() => stack?.stop());

  it("the bus logs a consumer's stall with its queue, is unready while it lasts, and reopens the silent connections", async () => {
    const redisPort = Number(/:(\d+)/.exec(stack.env['REDIS_URL']!.replace('redis://', ''))![1]);
    proxy = await FaultProxy.start({ target: { host: '127.0.0.1', port: redisPort } });
    const { lines, board, logger } = recording();
    const bus = new Bus({ redisUrl: through(stack.env['REDIS_URL']!, proxy), prefix: uniqueName('watch'), instanceId: 'watch', logger, clock: systemClock, liveness: { stallMs: 600 }, stalls: board });
    try {
      bus.consume({ queue: QueueNames.schedulerReady, schema: SchedulerWakeup, handle: async () => undefined });
      await waitFor(() => bus.isReady(), { timeoutMs: 10_000, description: 'the bus ready' });
      const opened = proxy.acceptedConnections;
      proxy.set({ kind: 'blackhole' });
      await waitFor(() => !bus.isReady(), { timeoutMs: 5_000, description: 'the bus unready during the cut' });
      const stall = await waitFor(() => lines.find((l) => l['queue'] === QueueNames.schedulerReady && l['level'] === 40), { timeoutMs: 5_000, description: "the consumer's stall" });
      expect(stall['msg']).toMatch(/^consumer of queue 'scheduler\.ready' has not heard from Redis for \d+ ms \(bound 600 ms\); its connection is being re-established$/);
      // Dropped and reopened while silent (the consumer's two, the sender's): new connections reach the proxy.
      await waitFor(() => proxy.acceptedConnections >= opened + 3, { timeoutMs: 5_000, description: 'the silent connections reopened' });
      proxy.set({ kind: 'pass' });
      await waitFor(() => bus.isReady() && board.isClear(), { timeoutMs: 10_000, description: 'the bus ready again after the heal' });
      expect(lines.some((l) => l['stall'] === `redis:${QueueNames.schedulerReady}` && typeof l['stalledMs'] === 'number')).toBe(true);
    } finally {
      await bus.close();
    }
  });

  it('the store watch logs a waiting call with its collection, is stalled while it waits, and clears once MongoDB answers', async () => {
    const mongoPort = Number(/127\.0\.0\.1:(\d+)/.exec(stack.env['MONGO_URL']!)![1]);
    proxy = await FaultProxy.start({ target: { host: '127.0.0.1', port: mongoPort } });
    const { lines, board, logger } = recording();
    // A call whose bytes the cut dropped waits for the socket timeout: 3 s here, so the test is short.
    const store: StoreConnection = await connectStore(through(stack.env['MONGO_URL']!, proxy), stack.dbName, { logger, stalls: board, liveness: { stallMs: 600, socketTimeoutMs: 3_000 } });
    try {
      expect(lines.find((l) => String(l['msg']).startsWith('connected to MongoDB at'))).toMatchObject({ database: stack.dbName, mongo: `127.0.0.1:${proxy.port}` });
      await store.db.collection('widgets').insertOne({ n: 1 });
      proxy.set({ kind: 'blackhole' });
      const waiting = store.db.collection('widgets').insertOne({ n: 2 }).catch((e: Error) => e);
      await waitFor(() => store.isStalled(), { timeoutMs: 5_000, description: 'the store stalled during the cut' });
      const stall = lines.find((l) => l['stall'] === 'mongo' && l['level'] === 40);
      expect(stall?.['msg']).toMatch(/^store calls have waited for MongoDB for \d+ ms \(bound 600 ms\) on .*widgets/);
      proxy.set({ kind: 'pass' });
      await waitFor(() => !store.isStalled(), { timeoutMs: 15_000, description: 'the store clear after the heal' });
      await waiting;
      expect(lines.some((l) => l['stall'] === 'mongo' && typeof l['stalledMs'] === 'number')).toBe(true);
      await expect(store.db.collection('widgets').countDocuments()).resolves.toBeGreaterThanOrEqual(1);
    } finally {
      await store.close();
    }
  });

  it('a consumer connection closed during its blocking wait does not hold the process until its socket timeout', () => {
    // A child process: an open handle would keep it alive, which jest in this process cannot see.
    const script = `
      const { createRedisConnection, redisLivenessOptions } = require(${JSON.stringify(require.resolve('@sas/client'))});
      const { Worker } = require(${JSON.stringify(require.resolve('bullmq', { paths: [require.resolve('@sas/client')] }))});
      (async () => {
        const connection = createRedisConnection(process.argv[1], redisLivenessOptions('consumer'));
        const worker = new Worker('linger', async () => undefined, { connection, prefix: 'linger' });
        await worker.waitUntilReady();
        await new Promise((resolve) => setTimeout(resolve, 300)); // the worker is in its blocking wait
        await worker.close();
        await connection.quit();
      })();`;
    const started = Date.now();
    const child = spawnSync(process.execPath, ['-e', script, stack.env['REDIS_URL']!], { timeout: 12_000, encoding: 'utf8' });
    expect({ status: child.status, stderr: child.stderr }).toEqual({ status: 0, stderr: '' });
    // The consumer timeout is 15 s: a process held by its timer would end only then (or be killed at 12 s).
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
