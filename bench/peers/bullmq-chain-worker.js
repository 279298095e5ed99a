// @ts-check
'use strict';
// The hand-rolled BullMQ chain: one queue per step; each step's worker calls the remote and adds
// the order to the next step's queue, the last one to the done queue the benchmark consumes. This
// is what a team writes when it chains BullMQ workers itself: no history, no fencing, no
// compensation, no status events. Started by bench/lib/peer-bullmq-chain.js.

const { Queue, Worker } = require('bullmq');
const { ORDER_STEPS, callStep, exitWithParent, requiredEnv } = require('./order-steps');

const remoteUrl = requiredEnv('BENCH_REMOTE_URL');
const connection = { host: '127.0.0.1', port: Number(requiredEnv('BENCH_REDIS_PORT')) };
const concurrency = Number(requiredEnv('BENCH_CONCURRENCY'));
const prefix = 'chain';
/** Finished jobs are removed at once, as the benchmark's raw baseline does (nothing reads them). */
const jobOptions = { removeOnComplete: true, removeOnFail: true };

async function main() {
  const names = [...ORDER_STEPS.map(([service]) => `order.${service}`), 'order.done'];
  const queues = names.map((name) => new Queue(name, { connection, prefix }));
  const workers = ORDER_STEPS.map(
    (_, i) =>
      new Worker(
        names[i] ?? '',
        async (job) => {
          const orderId = String(job.data.orderId);
          await callStep(remoteUrl, i, orderId);
          await queues[i + 1]?.add('order', { orderId }, { ...jobOptions, jobId: orderId });
        },
        { connection, prefix, concurrency },
      ),
  );
  for (const worker of workers) worker.on('error', (error) => process.stderr.write(`bullmq-chain: ${error.message}\n`));
  await Promise.all([...workers.map((w) => w.waitUntilReady()), ...queues.map((q) => q.waitUntilReady())]);
  process.stdout.write(`${JSON.stringify({ event: 'ready', pid: process.pid })}\n`);
  exitWithParent(() => Promise.allSettled([...workers.map((w) => w.close()), ...queues.map((q) => q.close())]));
}

main().catch((error) => {
  process.stderr.write(`bullmq-chain: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
