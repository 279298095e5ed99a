// @ts-check
'use strict';

const { performance } = require('node:perf_hooks');
const { latencyStats } = require('./latency-stats');
const { ProcessSampler, processTree, TICKS_PER_SECOND } = require('./process-sampler');
const { describeWork, workPerOrder } = require('./work-counters');

/**
 * @typedef {object} PeerRunSettings
 * @property {number} warmupOrders orders at 64 in flight before anything is measured
 * @property {number} serialOrders orders at 1 in flight, each timed (the p50)
 * @property {number} windowSeconds measured window at 64 in flight
 * @property {number} inFlight the throughput run's concurrency (64)
 * @property {number} stallMs an order that takes longer than this fails the run
 */

/**
 * @typedef {object} PeerUnderTest
 * @property {(orderId: string) => Promise<void>} runOrder starts one order and resolves when it finished (rejects when it did not succeed)
 * @property {() => import('./process-sampler').SampledProcess[]} processes the system's processes but the benchmark's own (each root is widened to its process tree)
 * @property {Pick<import('./work-counters').WorkCounters, 'snapshot'>} [work] the system's stores' counters, read at both ends of the window
 */

/**
 * Runs `inFlight` orders at a time until `more()` says stop, and records start and end of each.
 * @param {PeerUnderTest} peer
 * @param {{ idPrefix: string, inFlight: number, more: (finished: number, started: number) => boolean, stallMs: number, signal: AbortSignal }} run
 * @returns {Promise<{ start: number, end: number }[]>}
 */
async function closedLoop(peer, { idPrefix, inFlight, more, stallMs, signal }) {
  /** @type {{ start: number, end: number }[]} */
  const done = [];
  let next = 0;
  let failed = false; // one failed order ends the loop: the other slots start no more
  const slot = async () => {
    while (!failed && more(done.length, next) && !signal.aborted) {
      const orderId = `${idPrefix}-${++next}`;
      const start = performance.now();
      /** @type {NodeJS.Timeout | undefined} */
      let timer;
      const stalled = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`order ${orderId} did not finish within ${stallMs / 1000} s`)), stallMs);
      });
      try {
        await Promise.race([peer.runOrder(orderId), stalled]);
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        clearTimeout(timer);
      }
      done.push({ start, end: performance.now() });
    }
  };
  await Promise.all(Array.from({ length: inFlight }, slot));
  if (signal.aborted) throw new Error('interrupted');
  return done;
}

/**
 * The figures of one system: warm-up at 64 in flight, the p50 at 1 in flight, then orders/s, CPU
 * per order and memory over a window at 64 in flight (started once the loop has turned over).
 * @param {PeerUnderTest} peer
 * @param {PeerRunSettings & { idPrefix: string, say: (line: string) => void, signal: AbortSignal }} settings
 * @returns {Promise<{ figures: import('./peer-table').PeerFigures, processes: number, byRole: Record<string, { processes: number, cpuMsPerOrder: number, pssMb: number }>, work?: import('./work-counters').WorkPerOrder }>}
 */
async function measurePeer(peer, settings) {
  const { idPrefix, inFlight, stallMs, signal, say } = settings;
  const w0 = performance.now();
  await closedLoop(peer, { idPrefix: `${idPrefix}-w`, inFlight, more: (_, started) => started < settings.warmupOrders, stallMs, signal });
  say(`    warmed up: ${settings.warmupOrders} orders at ${inFlight} in flight in ${((performance.now() - w0) / 1000).toFixed(1)} s`);
  const serial = await closedLoop(peer, { idPrefix: `${idPrefix}-s`, inFlight: 1, more: (_, started) => started < settings.serialOrders, stallMs, signal });
  const k1 = latencyStats(serial.map((o) => o.end - o.start));
  say(`    1 in flight: p50 ${k1.p50} ms, p95 ${k1.p95} ms over ${k1.count} orders`);

  // The benchmark process is the application: it submits the orders and waits for their outcome
  // (a client's share of every system's work), and it is counted for every system alike.
  const driver = { name: 'bench driver', role: 'application', pid: () => process.pid };
  // Not the driver's process tree: every process the benchmark started hangs below it.
  const sampled = [
    ...peer.processes().flatMap((p) => {
      const pid = p.pid();
      if (pid === undefined) return [p];
      return processTree(pid).map((child, i) => (i === 0 ? p : { name: `${p.name} child ${child}`, role: p.role, pid: () => child }));
    }),
    driver,
  ];
  const sampler = new ProcessSampler(sampled, 200, { pss: true });
  /** @type {number | undefined} */
  let windowStart;
  /** @type {number | undefined} */
  let windowEnd;
  /** @type {Promise<import('./work-counters').WorkSnapshot> | undefined} */
  let workBefore;
  /** @type {Promise<import('./work-counters').WorkSnapshot> | undefined} */
  let workAfter;
  const windowMs = settings.windowSeconds * 1000;
  const loop = closedLoop(peer, {
    idPrefix: `${idPrefix}-t`,
    inFlight,
    more: (finished) => {
      const now = performance.now();
      if (windowStart === undefined && finished >= inFlight) {
        windowStart = now;
        sampler.start();
        workBefore = peer.work?.snapshot();
      }
      if (windowStart !== undefined && windowEnd === undefined && now - windowStart >= windowMs) {
        windowEnd = now;
        sampler.stop();
        workAfter = peer.work?.snapshot();
      }
      return windowEnd === undefined;
    },
    stallMs,
    signal,
  });
  let orders;
  try {
    orders = await loop;
  } finally {
    sampler.stop();
  }
  const start = windowStart ?? 0;
  const end = windowEnd ?? performance.now();
  const inWindow = orders.filter((o) => o.end >= start && o.end <= end).length;
  const used = sampler.stop();
  const cpuTicks = used.reduce((sum, p) => sum + (p.lastCpuTicks - p.firstCpuTicks), 0);
  const pssKb = used.reduce((sum, p) => sum + p.peakPssKb, 0);
  const figures = {
    p50Ms: Math.round(k1.p50 * 10) / 10,
    ordersPerSecond: Math.round((inWindow / ((end - start) / 1000)) * 10) / 10,
    cpuMsPerOrder: inWindow > 0 ? Math.round(((cpuTicks * (1000 / TICKS_PER_SECOND)) / inWindow) * 100) / 100 : 0,
    pssMb: Math.round(pssKb / 1024),
  };
  say(`    ${inFlight} in flight: ${figures.ordersPerSecond} orders/s, ${figures.cpuMsPerOrder} ms CPU per order, ${figures.pssMb} MB PSS over ${used.length} processes`);
  /** @type {Record<string, { processes: number, cpuMsPerOrder: number, pssMb: number }>} */
  const byRole = {};
  for (const p of used) {
    const role = (byRole[p.role] ??= { processes: 0, cpuMsPerOrder: 0, pssMb: 0 });
    role.processes += 1;
    role.cpuMsPerOrder += inWindow > 0 ? ((p.lastCpuTicks - p.firstCpuTicks) * (1000 / TICKS_PER_SECOND)) / inWindow : 0;
    role.pssMb += p.peakPssKb / 1024;
  }
  for (const role of Object.values(byRole)) {
    role.cpuMsPerOrder = Math.round(role.cpuMsPerOrder * 100) / 100;
    role.pssMb = Math.round(role.pssMb);
  }
  say(`    by role (CPU ms per order, MB PSS): ${Object.entries(byRole).map(([name, r]) => `${name} ${r.cpuMsPerOrder} / ${r.pssMb}`).join(', ')}`);
  const work = workBefore && workAfter ? workPerOrder(await workBefore, await workAfter, inWindow) : undefined;
  if (work) say(`    work per order: ${describeWork(work)}`);
  return { figures, processes: used.length, byRole, ...(work ? { work } : {}) };
}

module.exports = { measurePeer };
