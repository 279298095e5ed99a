// @ts-check
'use strict';

const { latencyStats, round } = require('./latency-stats');

/**
 * @typedef {object} Completion
 * @property {string} orderId
 * @property {number} submittedAt performance.now() when the order was handed to the client
 * @property {number} doneAt performance.now() when its final status event arrived
 * @property {string} status the final status (`Processed`, or what the order ended in instead)
 */

/**
 * @typedef {object} WindowFigures
 * @property {number} windowSeconds length of the measured window
 * @property {number} completed orders Processed inside the window
 * @property {number} ordersPerSecond completed ÷ windowSeconds
 * @property {number} p50Ms median submit → Processed of those orders
 * @property {number} p95Ms
 * @property {import('./latency-stats').LatencyStats} latencyMs submit → Processed, all figures
 * @property {Record<string, number>} notProcessed orders that ended in the window in another final status, by status
 * @property {string[]} orderIds the orders Processed inside the window (for the store's own timestamps)
 */

/**
 * The figures of one measured window of a closed loop: only orders whose final status arrived
 * inside [windowStart, windowEnd] count, so the warm-up (queues filling, JIT) and the drain at the
 * end (fewer orders in flight) are left out. An order that ended in another status than
 * Processed is counted apart and not in the rate: a failure must not pass for throughput.
 *
 * @param {readonly Completion[]} completions
 * @param {number} windowStart performance.now() time
 * @param {number} windowEnd performance.now() time
 * @returns {WindowFigures}
 */
function windowFigures(completions, windowStart, windowEnd) {
  if (!(windowEnd > windowStart)) throw new Error(`window end (${windowEnd}) must come after its start (${windowStart})`);
  const inWindow = completions.filter((c) => c.doneAt >= windowStart && c.doneAt <= windowEnd);
  const processed = inWindow.filter((c) => c.status === 'Processed');
  /** @type {Record<string, number>} */
  const notProcessed = {};
  for (const c of inWindow) if (c.status !== 'Processed') notProcessed[c.status] = (notProcessed[c.status] ?? 0) + 1;
  const windowSeconds = (windowEnd - windowStart) / 1000;
  const latencyMs = latencyStats(processed.map((c) => c.doneAt - c.submittedAt));
  return {
    windowSeconds: round(windowSeconds),
    completed: processed.length,
    ordersPerSecond: round(processed.length / windowSeconds),
    p50Ms: latencyMs.p50,
    p95Ms: latencyMs.p95,
    latencyMs,
    notProcessed,
    orderIds: processed.map((c) => c.orderId),
  };
}

module.exports = { windowFigures };
