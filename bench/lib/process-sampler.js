// @ts-check
'use strict';

const { readFileSync, readdirSync } = require('node:fs');

/**
 * @typedef {object} SampledProcess
 * @property {string} name process name, e.g. `scheduler-2`
 * @property {string} role what it is, e.g. `scheduler`; the report gives the maximum per role
 * @property {() => number | undefined} pid current OS pid (`undefined` once it has exited)
 */

/**
 * @typedef {object} ProcessPeak
 * @property {string} name
 * @property {string} role
 * @property {number} firstKb VmRSS at the first sample (the process at rest, before the load)
 * @property {number} peakKb highest VmRSS seen
 * @property {number} firstCpuTicks user + system CPU time at the first sample, in clock ticks
 * @property {number} lastCpuTicks the same at the last sample
 * @property {number} samples how many samples read it
 * @property {number} peakPssKb highest proportional set size seen (shared pages split between their
 *   users, so the PSS of several processes adds up); 0 unless the sampler was asked to read it
 */

/**
 * @typedef {object} RolePeak
 * @property {number} peakKb the largest peak VmRSS of the role's processes
 * @property {number} restKb the largest VmRSS at the first sample (before the load)
 * @property {number} cpuSeconds CPU time the role's processes used between the first and last sample, summed
 * @property {number} processes how many processes have the role
 */

/** Linux's USER_HZ: `/proc/<pid>/stat` counts CPU time in these ticks on every mainstream kernel. */
const TICKS_PER_SECOND = 100;

/** With `pss`, PSS is read at every this-many-th sample (every 2 s at the default interval). */
const PSS_EVERY = 10;

/**
 * Samples the resident memory (VmRSS of `/proc/<pid>/status`) and CPU time (`/proc/<pid>/stat`)
 * of the given processes at a fixed interval, and keeps each one's peak memory and CPU used.
 * Memory is part of what the system costs to run (the peak under load is what a container limit
 * must cover), and CPU per role shows where the time of a step goes on a small machine. Linux
 * only: elsewhere it reads nothing and the report shows no rows.
 */
class ProcessSampler {
  /**
   * @param {readonly SampledProcess[]} processes
   * @param {number} intervalMs @default 200
   * @param {{ pss?: boolean }} [options] `pss`: also read each process's PSS, at the first sample,
   *   every {@link PSS_EVERY}th and the last (smaps_rollup costs ~1.5 ms of CPU per read, which would
   *   be charged to the process that samples; the peers comparison sums PSS across a system)
   */
  constructor(processes, intervalMs = 200, options = {}) {
    this.processes = processes;
    this.intervalMs = intervalMs;
    this.readPss = options.pss === true;
    this.sampleCount = 0;
    /** @type {Map<string, ProcessPeak>} */
    this.peaks = new Map();
    /** @type {NodeJS.Timeout | undefined} */
    this.timer = undefined;
  }

  /** Takes one sample now and then one every interval until {@link ProcessSampler.stop}. */
  start() {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
  }

  /** Stops sampling (idempotent) after one last sample, and returns what each process used. */
  stop() {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
      this.sample(true);
    }
    return [...this.peaks.values()];
  }

  /** @returns {Record<string, RolePeak>} peak memory and CPU used, per role */
  peaksByRole() {
    /** @type {Record<string, RolePeak>} */
    const roles = {};
    for (const peak of this.peaks.values()) {
      const row = (roles[peak.role] ??= { peakKb: 0, restKb: 0, cpuSeconds: 0, processes: 0 });
      row.peakKb = Math.max(row.peakKb, peak.peakKb);
      row.restKb = Math.max(row.restKb, peak.firstKb);
      row.cpuSeconds = Math.round((row.cpuSeconds + (peak.lastCpuTicks - peak.firstCpuTicks) / TICKS_PER_SECOND) * 100) / 100;
      row.processes += 1;
    }
    return roles;
  }

  /**
   * @private
   * @param {boolean} [last] the final sample: PSS is read whatever the count
   */
  sample(last = false) {
    const withPss = this.readPss && (last || this.sampleCount++ % PSS_EVERY === 0);
    for (const process of this.processes) {
      const pid = process.pid();
      if (pid === undefined) continue;
      const kb = readRssKb(pid);
      const ticks = readCpuTicks(pid);
      if (kb === undefined || ticks === undefined) continue;
      const pssKb = withPss ? readPssKb(pid) ?? 0 : 0;
      const peak = this.peaks.get(process.name);
      if (peak) {
        peak.peakKb = Math.max(peak.peakKb, kb);
        peak.peakPssKb = Math.max(peak.peakPssKb, pssKb);
        peak.lastCpuTicks = ticks;
        peak.samples += 1;
      } else {
        this.peaks.set(process.name, { name: process.name, role: process.role, firstKb: kb, peakKb: kb, firstCpuTicks: ticks, lastCpuTicks: ticks, samples: 1, peakPssKb: pssKb });
      }
    }
  }
}

/**
 * VmRSS of a process in KiB, or `undefined` when it cannot be read (exited, not Linux).
 * @param {number} pid
 */
function readRssKb(pid) {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Proportional set size of a process in KiB (`Pss:` of `/proc/<pid>/smaps_rollup`): its private
 * pages plus its share of pages it shares, so summing it over processes counts shared libraries
 * once. `undefined` when it cannot be read (exited, not Linux, a kernel before 4.14).
 * @param {number} pid
 */
function readPssKb(pid) {
  try {
    const match = /^Pss:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `rootPid` and every process below it (children, their children, ...), read from `/proc` once.
 * A system's server may fork workers (PostgreSQL a backend per connection), and its cost is the
 * whole tree's. Linux only; elsewhere just `[rootPid]`.
 * @param {number} rootPid
 * @returns {number[]}
 */
function processTree(rootPid) {
  /** @type {Map<number, number[]>} */
  const children = new Map();
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        const list = children.get(ppid) ?? [];
        list.push(Number(entry));
        children.set(ppid, list);
      } catch {
        // ended while we looked
      }
    }
  } catch {
    return [rootPid];
  }
  const tree = [rootPid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i] ?? -1) ?? []));
  return tree;
}

/**
 * User + system CPU time of a process in clock ticks, or `undefined` when it cannot be read.
 * @param {number} pid
 */
function readCpuTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Direct children of `parentPid` whose command line contains `needle`. The embedded MongoDB is
 * started by `@sas/stack`, which does not expose its pid; its command line (`node …/cli.js`)
 * finds it. Linux only; elsewhere returns no pids.
 *
 * @param {number} parentPid
 * @param {string} needle
 * @returns {number[]}
 */
function childPidsMatching(parentPid, needle) {
  /** @type {number[]} */
  const pids = [];
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name (2nd field) may hold spaces and parentheses: the ppid follows the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== parentPid) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmdline.includes(needle)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked: not ours to report.
    }
  }
  return pids;
}

module.exports = { ProcessSampler, childPidsMatching, processTree, TICKS_PER_SECOND };
