// @ts-check
'use strict';

const { readFileSync } = require('node:fs');

/**
 * @typedef {object} MachineCpu
 * @property {number} busyTicks every CPU's time not idle (nor waiting for I/O), in clock ticks
 * @property {number} totalTicks every CPU's time, in clock ticks
 */

/**
 * The machine's CPU counters (the `cpu` line of `/proc/stat`): all processes, ours and any other
 * job's. Linux only; elsewhere `undefined`.
 * @returns {MachineCpu | undefined}
 */
function readMachineCpu() {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n').find((l) => l.startsWith('cpu '));
    if (!line) return undefined;
    const ticks = line.trim().split(/\s+/).slice(1).map(Number);
    const totalTicks = ticks.reduce((a, b) => a + b, 0);
    const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
    return { busyTicks: totalTicks - idle, totalTicks };
  } catch {
    return undefined;
  }
}

/**
 * How many of the machine's `cpus` were busy on average between two readings.
 * @param {MachineCpu | undefined} before
 * @param {MachineCpu | undefined} after
 * @param {number} cpus
 * @returns {number | undefined}
 */
function busyCores(before, after, cpus) {
  if (!before || !after || after.totalTicks <= before.totalTicks) return undefined;
  return Math.round(((after.busyTicks - before.busyTicks) / (after.totalTicks - before.totalTicks)) * cpus * 100) / 100;
}

module.exports = { readMachineCpu, busyCores };
