// @ts-check
'use strict';

const { join } = require('node:path');
const { Queue, Worker } = require('bullmq');
const { ManagedProcess, startRedis } = require('@sas/stack');
const { WorkCounters } = require('./work-counters');

/** Each step's worker takes up to this many jobs at once: more than the 64 in flight, so it never queues orders itself. */
const CHAIN_CONCURRENCY = 64;

/**
 * The hand-rolled BullMQ chain (bench/peers/bullmq-chain-worker.js) on its own redis-server with
 * AOF everysec. The benchmark adds each order to the first step's queue and learns it finished
 * from the done queue the last step fills.
 * @param {import('./peers-run').PeerContext} ctx
 * @returns {Promise<import('./peers-run').StartedPeer>}
 */
async function startBullmqChain(ctx) {
  const redis = await startRedis({ appendOnly: true });
  ctx.cleanup.push('the chain\'s redis-server', () => redis.stop());
  const worker = new ManagedProcess({
    name: 'bullmq-chain',
    command: process.execPath,
    args: [join(ctx.peersDir, 'bullmq-chain-worker.js')],
    env: { BENCH_REMOTE_URL: ctx.remoteUrl, BENCH_REDIS_PORT: String(redis.port), BENCH_CONCURRENCY: String(CHAIN_CONCURRENCY), BENCH_PARENT_PID: String(process.pid) },
    maxLines: 200,
  });
  ctx.cleanup.push('the chain\'s workers', () => worker.stop(3000));
  await worker.start();
  await worker.waitForLine((l) => l.json?.['event'] === 'ready', 30_000, 'the chain\'s workers to be ready');

  const connection = { host: '127.0.0.1', port: redis.port };
  const first = new Queue('order.inventory', { connection, prefix: 'chain' });
  /** @type {Map<string, () => void>} */
  const pending = new Map();
  const done = new Worker(
    'order.done',
    async (job) => {
      const orderId = String(job.data.orderId);
      pending.get(orderId)?.();
      pending.delete(orderId);
    },
    { connection, prefix: 'chain', concurrency: CHAIN_CONCURRENCY, removeOnComplete: { count: 0 }, removeOnFail: { count: 0 } },
  );
  ctx.cleanup.push('the chain\'s driver queues', () => Promise.allSettled([done.close(), first.close()]));
  await Promise.all([first.waitUntilReady(), done.waitUntilReady()]);
  const work = new WorkCounters({ redisUrl: `redis://127.0.0.1:${redis.port}` });
  ctx.cleanup.push('the work counters', () => work.close());
  return {
    work,
    settings: [
      'redis-server 7 of the machine, its own, `--appendonly yes --appendfsync everysec` (the issue\'s setting; Redis\'s default is no AOF)',
      `one queue per step and a done queue; each step's Worker at concurrency ${CHAIN_CONCURRENCY} (BullMQ's default is 1), the three in one process`,
      'jobs removed on completion (`removeOnComplete: true`; BullMQ keeps them by default); jobId = orderId, so adding an order twice is a no-op',
      'per order: 4 BullMQ jobs, no history, no fencing, no compensation, no status events',
    ],
    processes: () => [
      { name: 'redis', role: 'redis', pid: () => redis.pid },
      { name: 'bullmq-chain', role: 'workers', pid: () => worker.pid },
    ],
    runOrder: (orderId) =>
      new Promise((resolve, reject) => {
        pending.set(orderId, resolve);
        first.add('order', { orderId }, { jobId: orderId, removeOnComplete: true, removeOnFail: true }).catch(reject);
      }),
  };
}

module.exports = { startBullmqChain };
