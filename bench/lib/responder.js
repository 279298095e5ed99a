// @ts-check
'use strict';
// The far side of the raw BullMQ baseline, run as its own process (as an agent is): it consumes
// the request queue and answers each job by adding a reply to the reply queue. It does no work
// of its own, so a round trip through it is the least a step of the real system can cost.
// Configured through the environment by raw-round-trips.js; prints {"event":"ready"} once its
// worker is connected, and exits on SIGTERM/SIGINT or when the benchmark that started it is gone.

const { Queue, Worker } = require('bullmq');

/** @param {string} name */
function required(name) {
  const value = process.env[name];
  if (value === undefined || value === '') {
    process.stderr.write(`responder: ${name} is not set; this script is started by bench/run-benchmarks.js\n`);
    process.exit(2);
  }
  return value;
}

async function main() {
  const connection = { host: '127.0.0.1', port: Number(required('BENCH_REDIS_PORT')) };
  const prefix = required('BENCH_PREFIX');
  const concurrency = Number(required('BENCH_CONCURRENCY'));
  const parentPid = Number(required('BENCH_PARENT_PID'));
  const replies = new Queue(required('BENCH_REPLY_QUEUE'), { connection, prefix });
  const worker = new Worker(
    required('BENCH_REQUEST_QUEUE'),
    async (job) => {
      await replies.add('reply', job.data, { removeOnComplete: true, removeOnFail: true });
    },
    { connection, prefix, concurrency, removeOnComplete: { count: 0 }, removeOnFail: { count: 0 } },
  );
  worker.on('error', (error) => process.stderr.write(`responder: worker error: ${error.message}\n`));
  await worker.waitUntilReady();
  await replies.waitUntilReady();
  process.stdout.write(`${JSON.stringify({ event: 'ready', pid: process.pid })}\n`);

  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    await Promise.allSettled([worker.close(), replies.close()]);
    process.exit(0);
  };
  process.on('SIGTERM', () => void close());
  process.on('SIGINT', () => void close());
  // A benchmark killed with SIGKILL cannot stop us; notice that our parent is gone and leave too.
  setInterval(() => {
    try {
      process.kill(parentPid, 0);
    } catch {
      void close();
    }
  }, 1000).unref();
}

main().catch((error) => {
  process.stderr.write(`responder: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
