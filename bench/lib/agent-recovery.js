// @ts-check
'use strict';

const { performance } = require('node:perf_hooks');
const { Queue } = require('bullmq');
const { QueueNames, queueKeyPrefix } = require('@sas/contracts');
const { ClosedLoop } = require('./closed-loop');
const { recoveryFigures } = require('./bench-figures');
const { waitUntil } = require('./wait-until');

/** The agent killed, and the remote latency that keeps its requests in flight long enough to be caught. */
const VICTIM = 'agent-payment';
const REMOTE_SERVICE = 'payment';
const REMOTE_LATENCY_MS = 100;
/**
 * The kill waits (a few seconds at most) until this many payment requests are active: shared by
 * two agents, the victim then almost surely holds some, so the figure measures a recovery rather
 * than a kill that caught nothing.
 */
const ACTIVE_AT_KILL = 6;
const ACTIVE_WAIT_MS = 10_000;

/**
 * @typedef {object} RecoveryOptions
 * @property {import('./bench-system').BenchSystem} bench a running system; it gets a second payment agent and loses the first
 * @property {number} inFlight the moderate load kept during the run
 * @property {number} warmupMs load before the kill
 * @property {number} completeByMs the step's complete-by, from the workflow
 * @property {number} sweepIntervalMs the supervisors' sweep interval
 * @property {(line: string) => void} say
 * @property {AbortSignal} signal
 */

/**
 * Issue 8's recovery figure: `kill -9` of one agent process mid-run. A second payment agent is
 * started first, so the system keeps serving; remote-sim answers payment after
 * {@link REMOTE_LATENCY_MS} ms, so the killed agent holds requests when it dies. An order is
 * affected when one of its steps had to be dispatched again; the figure is the time from the
 * kill until the last affected order is Processed, as the application sees it.
 *
 * @param {RecoveryOptions} options
 * @returns {Promise<import('./bench-figures').RecoveryFigures & { killed: string, inFlight: number, remoteLatencyMs: number }>}
 */
async function measureAgentRecovery(options) {
  const { bench, inFlight, warmupMs, say, signal } = options;
  const stallMs = bench.options.stallMs;
  const logHint = bench.options.logDir;
  await bench.system.spawn(VICTIM);
  await bench.setRemoteLatency(REMOTE_SERVICE, REMOTE_LATENCY_MS);
  const victim = bench.system.byRole(VICTIM)[0];
  if (!victim) throw new Error(`no ${VICTIM} process to kill`);
  say(`  2 payment agents, payment answers after ${REMOTE_LATENCY_MS} ms; ${inFlight} orders in flight, kill -9 ${victim.name} after ${warmupMs / 1000} s`);

  const loop = new ClosedLoop({ sas: bench.sas, idPrefix: `${bench.options.name}-recovery`, inFlight });
  await loop.start();
  const t0 = performance.now();
  await waitUntil(() => {
    loop.check(stallMs, logHint);
    return performance.now() - t0 >= warmupMs;
  }, { timeoutMs: warmupMs + stallMs, intervalMs: 20, description: 'the warm-up before the kill', signal });

  const redisUrl = new URL(bench.options.redis.url);
  const connection = { host: redisUrl.hostname, port: Number(redisUrl.port) };
  const queue = QueueNames.agentRequests(REMOTE_SERVICE);
  const requests = new Queue(queue, { connection, prefix: queueKeyPrefix(bench.options.name, queue) });
  let active = 0;
  try {
    const waitStart = performance.now();
    await waitUntil(async () => {
      loop.check(stallMs, logHint);
      active = await requests.getActiveCount();
      return active >= ACTIVE_AT_KILL || performance.now() - waitStart >= ACTIVE_WAIT_MS;
    }, { timeoutMs: ACTIVE_WAIT_MS + stallMs, intervalMs: 5, description: `${ACTIVE_AT_KILL} active payment requests`, signal });
  } finally {
    await requests.close();
  }
  const atKill = loop.inFlightOrders();
  const killAt = performance.now();
  await victim.kill('SIGKILL');
  say(`  killed ${victim.name} with ${atKill.length} orders in flight, ${active} payment requests active; waiting for every one of them to finish`);
  let lastReport = killAt;
  // The orders the dead agent held wait for complete-by and a sweep; allow that and a stall on top.
  const deadlineMs = options.completeByMs + options.sweepIntervalMs + stallMs;
  await waitUntil(() => {
    loop.check(stallMs, logHint);
    const open = atKill.filter((id) => loop.doneAt(id) === undefined).length;
    const now = performance.now();
    if (now - lastReport >= 2000) {
      lastReport = now;
      say(`  ${((now - killAt) / 1000).toFixed(0)} s after the kill: ${open} of those ${atKill.length} orders still open`);
    }
    return open === 0;
  }, { timeoutMs: deadlineMs, intervalMs: 20, description: `the ${atKill.length} orders in flight at the kill to finish (see ${logHint})`, signal });
  await loop.stop({ stallMs, logHint, signal });

  const docs = await bench.processes.find({ orderId: { $in: atKill } }, { projection: { orderId: 1, steps: 1 } }).toArray();
  const orders = docs.map((d) => {
    const orderId = String(d['orderId']);
    const steps = Array.isArray(d['steps']) ? d['steps'] : [];
    const completion = loop.completions.find((c) => c.orderId === orderId);
    return {
      orderId,
      redispatched: steps.some((/** @type {{ dispatches?: unknown }} */ s) => Number(s.dispatches) > 1),
      doneAt: completion?.doneAt ?? Number.NaN,
      status: completion?.status ?? 'unknown',
    };
  });
  const figures = recoveryFigures({ killAt, orders, completeByMs: options.completeByMs, sweepIntervalMs: options.sweepIntervalMs });
  return { ...figures, killed: victim.name, inFlight, remoteLatencyMs: REMOTE_LATENCY_MS };
}

module.exports = { measureAgentRecovery };
