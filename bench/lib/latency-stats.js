// @ts-check
'use strict';

/**
 * @typedef {object} LatencyStats
 * @property {number} count how many samples the figures are over
 * @property {number} p50 median, in milliseconds
 * @property {number} p95 95th percentile, in milliseconds
 * @property {number} p99 99th percentile, in milliseconds
 * @property {number} max slowest sample, in milliseconds
 * @property {number} mean arithmetic mean, in milliseconds
 */

/**
 * Summarises latency samples (milliseconds) with nearest-rank percentiles. Every benchmark reports
 * the same figures this way, so a table row of the baseline and one of the system compare directly.
 * Returns zeros for no samples rather than throwing: a report must still print when a phase
 * measured nothing, and say so through `count: 0`.
 *
 * @param {readonly number[]} samples
 * @returns {LatencyStats}
 */
function latencyStats(samples) {
  if (samples.length === 0) return { count: 0, p50: 0, p95: 0, p99: 0, max: 0, mean: 0 };
  const sorted = [...samples].sort((a, b) => a - b);
  /** @param {number} p */
  const rank = (p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
  const sum = sorted.reduce((acc, x) => acc + x, 0);
  return {
    count: sorted.length,
    p50: round(rank(50)),
    p95: round(rank(95)),
    p99: round(rank(99)),
    max: round(sorted[sorted.length - 1] ?? 0),
    mean: round(sum / sorted.length),
  };
}

/**
 * Rounds to 3 significant decimals: sub-millisecond latencies keep their precision while the JSON
 * stays readable.
 * @param {number} x
 */
function round(x) {
  return Math.round(x * 1000) / 1000;
}

module.exports = { latencyStats, round };
