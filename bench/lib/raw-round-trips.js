// @ts-check
'use strict';

const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const { Queue, Worker } = require('bullmq');
const { ManagedProcess } = require('@sas/stack');
const { latencyStats, round } = require('./latency-stats');
const { ProcessSampler, TICKS_PER_SECOND } = require('./process-sampler');
const { waitUntil } = require('./wait-until');

/**
 * @typedef {object} RoundTripResult
 * @property {number} inFlight round trips kept outstanding at once (closed loop)
 * @property {number} idleGapMs pause after each reply before the next request
 * @property {number} workerConcurrency `concurrency` of the responder's and the reply worker
 * @property {number} windowSeconds length of the measured window
 * @property {number} roundTripsPerSecond replies received in the window per second
 * @property {import('./latency-stats').LatencyStats} latencyMs send → reply, for replies in the window
 * @property {number} responderPeakKb peak VmRSS of the responder: what a bare BullMQ worker process costs
 * @property {number} cpuMsPerRoundTrip CPU time of the responder, Redis and this process over the window, per round trip
 */

/**
 * @typedef {object} RoundTripOptions
 * @property {number} redisPort the private Redis
 * @property {() => number | undefined} redisPid its process, whose CPU a round trip also costs
 * @property {string} prefix BullMQ key prefix, unique to this run
 * @property {number} inFlight
 * @property {number} [idleGapMs] wait this long after each reply before the next request (default 0: at once)
 * @property {number} warmupMs
 * @property {number} durationMs
 * @property {(line: string) => void} say
 * @property {AbortSignal} signal ends the run early (Ctrl-C)
 */

/**
 * The baseline every other number is compared with: raw BullMQ request/reply between this
 * process and a responder process (bench/lib/responder.js), with `inFlight` requests outstanding
 * at all times. It is the least one step of the system can cost, measured in the same run on the
 * same machine, so the ratios do not depend on how fast the machine is.
 *
 * @param {RoundTripOptions} options
 * @returns {Promise<RoundTripResult>}
 */
async function measureRawRoundTrips(options) {
  const { redisPort, redisPid, prefix, inFlight, warmupMs, durationMs, say, signal } = options;
  const idleGapMs = options.idleGapMs ?? 0;
  const connection = { host: '127.0.0.1', port: redisPort };
  const requestQueue = `bench.raw.${inFlight}.${idleGapMs}.requests`;
  const replyQueue = `bench.raw.${inFlight}.${idleGapMs}.replies`;
  const responder = new ManagedProcess({
    name: `responder-${inFlight}-${idleGapMs}`,
    command: process.execPath,
    args: [join(__dirname, 'responder.js')],
    env: {
      BENCH_REDIS_PORT: String(redisPort),
      BENCH_PREFIX: prefix,
      BENCH_REQUEST_QUEUE: requestQueue,
      BENCH_REPLY_QUEUE: replyQueue,
      BENCH_CONCURRENCY: String(inFlight),
      BENCH_PARENT_PID: String(process.pid),
    },
    maxLines: 200,
  });
  const requests = new Queue(requestQueue, { connection, prefix });
  /** @type {Map<number, number>} request id → performance.now() when sent */
  const pending = new Map();
  /** @type {number[]} flat pairs: reply time, latency */
  const samples = [];
  /** @type {Error | undefined} */
  let failure;
  let sending = true;
  let nextId = 0;
  const send = () => {
    const id = ++nextId;
    pending.set(id, performance.now());
    requests.add('request', { id }, { removeOnComplete: true, removeOnFail: true }).catch((error) => {
      failure ??= error instanceof Error ? error : new Error(String(error));
    });
  };
  const replies = new Worker(
    replyQueue,
    async (job) => {
      const end = performance.now();
      const id = Number(job.data.id);
      const start = pending.get(id);
      if (start === undefined) return;
      pending.delete(id);
      samples.push(end, end - start);
      if (!sending) return;
      if (idleGapMs > 0) setTimeout(() => sending && send(), idleGapMs);
      else send();
    },
    { connection, prefix, concurrency: inFlight, removeOnComplete: { count: 0 }, removeOnFail: { count: 0 }, autorun: false },
  );
  replies.on('error', (error) => {
    failure ??= error;
  });
  // Sampled over the measured window only, so CPU divides by the round trips of that window. This
  // process counts: it plays the scheduler's part (sends requests, consumes replies).
  const sampler = new ProcessSampler([
    { name: 'responder', role: 'responder', pid: () => responder.pid },
    { name: 'redis', role: 'redis', pid: redisPid },
    { name: 'requester', role: 'requester', pid: () => process.pid },
  ]);
  let sampling = false;
  try {
    await responder.start();
    await responder.waitForLine((l) => l.json?.['event'] === 'ready', 15_000, 'the responder to be ready');
    await requests.waitUntilReady();
    void replies.run();
    await replies.waitUntilReady();

    const t0 = performance.now();
    const windowStart = t0 + warmupMs;
    const windowEnd = windowStart + durationMs;
    for (let i = 0; i < inFlight; i++) send();
    let lastReport = t0;
    await waitUntil(() => {
      if (failure) throw failure;
      const now = performance.now();
      if (!sampling && now >= windowStart) {
        sampler.start();
        sampling = true;
      }
      if (now - lastReport >= 2000) {
        lastReport = now;
        say(`  ${inFlight} in flight: ${((now - t0) / 1000).toFixed(0)}/${((warmupMs + durationMs) / 1000).toFixed(0)} s, ${samples.length / 2} round trips`);
      }
      return now >= windowEnd;
    }, { timeoutMs: warmupMs + durationMs + 10_000, intervalMs: 50, description: 'the measured window to end', signal });
    sending = false;
    const used = sampler.stop();
    await waitUntil(() => pending.size === 0, {
      timeoutMs: 10_000,
      intervalMs: 20,
      description: `the last ${pending.size} replies (the responder may have stopped answering)`,
      signal,
    });

    /** @type {number[]} */
    const latencies = [];
    for (let i = 0; i < samples.length; i += 2) {
      const end = samples[i] ?? 0;
      if (end >= windowStart && end <= windowEnd) latencies.push(samples[i + 1] ?? 0);
    }
    const cpuTicks = used.reduce((sum, p) => sum + (p.lastCpuTicks - p.firstCpuTicks), 0);
    return {
      inFlight,
      idleGapMs,
      workerConcurrency: inFlight,
      windowSeconds: durationMs / 1000,
      roundTripsPerSecond: round(latencies.length / (durationMs / 1000)),
      latencyMs: latencyStats(latencies),
      responderPeakKb: used.find((p) => p.name === 'responder')?.peakKb ?? 0,
      cpuMsPerRoundTrip: latencies.length > 0 ? round((cpuTicks * (1000 / TICKS_PER_SECOND)) / latencies.length) : 0,
    };
  } catch (error) {
    const lines = responder.describeLastLines(10);
    throw new Error(`Raw BullMQ round trips at ${inFlight} in flight failed: ${error instanceof Error ? error.message : String(error)}\nResponder output:\n${lines}`, { cause: error });
  } finally {
    sampler.stop();
    sending = false;
    await Promise.allSettled([replies.close(), requests.close(), responder.stop(3000)]);
  }
}

module.exports = { measureRawRoundTrips };
