// @ts-check
'use strict';

const { MongoClient } = require('mongodb');
const { SasClient } = require('@sas/client');
const { LocalSystem, findWorkspaceRoot } = require('@sas/stack');
const { latencyStats, round } = require('./latency-stats');
const { ProcessSampler } = require('./process-sampler');
const { waitUntil } = require('./wait-until');

/** States a process does not leave on its own. */
const FINAL_STATES = ['Processed', 'Error', 'Compensated', 'Canceled'];

/**
 * @typedef {object} SystemOrdersOptions
 * @property {{ url: string, port: number, pid: () => number | undefined }} redis the private Redis
 * @property {{ url: string, kind: string, pid: () => number | undefined }} mongo the MongoDB the services use
 * @property {string} runId names the database, the queue prefix and the orders
 * @property {number} orders how many orders to submit at once
 * @property {number} timeoutMs give up when they have not all finished by then
 * @property {string} logDir one log file per service process
 * @property {(line: string) => void} say
 * @property {import('./cleanup-stack').CleanupStack} cleanup releases the system on Ctrl-C
 */

/**
 * @typedef {object} SystemOrdersResult
 * @property {number} orders submitted
 * @property {Record<string, number>} finalStates how many orders ended in each state
 * @property {number} processes service processes of the system (remote-sim included)
 * @property {number} seconds first submit → last order Processed
 * @property {number} ordersPerSecond Processed orders / seconds
 * @property {number} steps completed steps of the Processed orders
 * @property {number} stepsPerSecond steps / seconds
 * @property {import('./latency-stats').LatencyStats} latencyMs per order: createdAt → updatedAt of the Processed document
 * @property {import('./latency-stats').LatencyStats} submitToProcessedMs per order: submit → Processed, time in the submission queue included
 * @property {number} statusEvents distinct status events the application received (each once, by eventId)
 * @property {Record<string, import('./process-sampler').RolePeak>} memoryByRole peak VmRSS and CPU used per role, from submit to the last order finished
 */

/**
 * The whole system as real processes (LocalSystem, default topology, no faults) running `orders`
 * orders submitted at once, as an application would submit them. It measures what the pattern
 * costs end to end: throughput, per-order latency, steps per second, and each process's peak
 * memory under that load.
 *
 * @param {SystemOrdersOptions} options
 * @returns {Promise<SystemOrdersResult>}
 */
async function measureSystemOrders(options) {
  const { redis, mongo, runId, say, cleanup } = options;
  const prefix = `bench-${runId}`;
  const dbName = `bench-${runId}`;
  const env = { REDIS_URL: redis.url, MONGO_URL: mongo.url, MONGO_DB: dbName, QUEUE_PREFIX: prefix, LOG_LEVEL: 'info' };
  say(`  starting the system (remote-sim, 3 agents, 2 schedulers, 2 supervisors, submission); logs in ${options.logDir}`);
  cleanup.throwIfInterrupted();
  const system = await LocalSystem.start({ root: findWorkspaceRoot(), env, logDir: options.logDir, log: (msg) => say(`  ${msg}`) });
  const stopSystem = cleanup.push('the system', () => system.stop());
  const replyTo = `bench.status.${runId}`;
  let statusEvents = 0;
  // The benchmark is an application of the system: it submits and counts status events through @sas/client.
  const sas = new SasClient({ redisUrl: redis.url, prefix, replyTo });
  const closeQueues = cleanup.push('the benchmark\'s SasClient', () => sas.close());
  const client = await MongoClient.connect(mongo.url, { serverSelectionTimeoutMS: 10_000 });
  const closeClient = cleanup.push('the benchmark\'s MongoDB client', () => client.close());
  const sampler = new ProcessSampler([
    ...system.all.map((p) => ({ name: p.name, role: p.name.replace(/-\d+$/, ''), pid: () => p.pid })),
    { name: `mongodb (${mongo.kind})`, role: `mongodb (${mongo.kind})`, pid: mongo.pid },
    { name: 'redis', role: 'redis', pid: redis.pid },
    // It reads every service's log lines and polls MongoDB: its share of the 2 cores is part of the picture.
    { name: 'bench driver', role: 'bench driver (this process)', pid: () => process.pid },
  ]);
  try {
    say(`  ${system.all.length} processes ready; submitting ${options.orders} orders at once`);
    await sas.onStatus(() => void (statusEvents += 1));
    const processes = client.db(dbName).collection('processes');
    const orders = Array.from({ length: options.orders }, (_, i) => ({
      orderId: `bench-${runId}-${String(i + 1).padStart(5, '0')}`,
      workflow: 'order-fulfilment',
      payload: { sku: 'kettle', quantity: 1 + (i % 3), amount: 1999 + 250 * (i % 7) },
    }));
    // Only this run's orders: a preloaded history in the same database is not the driver's to poll.
    const mine = { orderId: { $in: orders.map((o) => o.orderId) } };
    sampler.start();
    const submittedAt = Date.now();
    await sas.submitAll(orders);

    /** @type {Record<string, number>} */
    let counts = {};
    let lastReport = 0;
    await waitUntil(async () => {
      const groups = await processes.aggregate([{ $match: mine }, { $group: { _id: '$state', n: { $sum: 1 } } }]).toArray();
      counts = Object.fromEntries(groups.map((g) => [String(g._id), Number(g['n'])]));
      const finished = FINAL_STATES.reduce((sum, state) => sum + (counts[state] ?? 0), 0);
      if (Date.now() - lastReport >= 2000 || finished === orders.length) {
        lastReport = Date.now();
        const states = Object.entries(counts).map(([state, n]) => `${state} ${n}`).join(', ');
        say(`  ${((Date.now() - submittedAt) / 1000).toFixed(1)} s: ${finished}/${orders.length} finished (${states || 'none stored yet'})`);
      }
      return finished === orders.length;
    }, { timeoutMs: options.timeoutMs, intervalMs: 250, description: `${orders.length} orders to finish (see the service logs in ${options.logDir})`, signal: cleanup.signal });
    sampler.stop();

    const docs = await processes.find(mine).toArray();
    const processed = docs.filter((d) => d['state'] === 'Processed');
    if (processed.length === 0) {
      throw new Error(`No order reached Processed (final states: ${JSON.stringify(counts)}); see the service logs in ${options.logDir}`);
    }
    const lastDone = Math.max(...processed.map((d) => toMs(d['updatedAt'])));
    const seconds = (lastDone - submittedAt) / 1000;
    const steps = processed.reduce((sum, d) => sum + (Array.isArray(d['steps']) ? d['steps'].filter((s) => s?.state === 'Completed').length : 0), 0);
    return {
      orders: orders.length,
      finalStates: counts,
      processes: system.all.length,
      seconds: round(seconds),
      ordersPerSecond: round(processed.length / seconds),
      steps,
      stepsPerSecond: round(steps / seconds),
      latencyMs: latencyStats(processed.map((d) => toMs(d['updatedAt']) - toMs(d['createdAt']))),
      submitToProcessedMs: latencyStats(processed.map((d) => toMs(d['updatedAt']) - submittedAt)),
      statusEvents,
      memoryByRole: sampler.peaksByRole(),
    };
  } finally {
    sampler.stop();
    say('  stopping the system ...');
    await closeClient();
    await closeQueues();
    await stopSystem();
  }
}

/**
 * Milliseconds since the epoch of a stored date; throws when a document lacks one, since the
 * latencies would otherwise be silently wrong.
 * @param {unknown} value
 */
function toMs(value) {
  if (value instanceof Date) return value.getTime();
  throw new Error(`Expected a stored Date, got ${JSON.stringify(value)}; the processes collection does not hold what the benchmark expects`);
}

module.exports = { measureSystemOrders };
