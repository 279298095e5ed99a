// @ts-check
'use strict';

const os = require('node:os');
const { busyCores, readMachineCpu } = require('./machine-cpu');
const { ProcessSampler } = require('./process-sampler');

/** Issue 8's scaling figure: remote-sim answers after 50 ms, agents go 1 → 2 → 4 replicas. */
const REMOTE_LATENCY_MS = 50;
/**
 * The same series with a remote slow enough to dominate on a 2-core machine: at 50 ms, 4 replicas
 * would allow 80 orders/s, more than the whole system runs on two cores (about 50), so that figure
 * measures the machine; at 250 ms, 4 replicas allow 16 orders/s, about a quarter of the two cores.
 */
const SLOW_REMOTE_LATENCY_MS = 250;
const REPLICAS = [1, 2, 4];
const AGENTS = ['inventory', 'payment', 'shipping'];
/**
 * Requests each agent process handles at once. With the default (16), one replica could keep 16
 * calls of 50 ms outstanding (320 steps/s), far beyond what two cores run, so the remote would
 * never dominate and replicas would change nothing. At 1, a replica is worth 20 calls/s and the
 * remote is what limits orders/s, as the figure requires.
 */
const AGENT_CONCURRENCY = 1;
/** Enough orders outstanding to keep every replica of every agent busy at the largest count. */
const IN_FLIGHT = 32;

/**
 * @typedef {object} ScalingOptions
 * @property {import('./bench-system').BenchSystem} bench a running system; its agents are replaced
 * @property {number} warmupMs
 * @property {number} durationMs
 * @property {(line: string) => void} say
 * @property {number} [remoteLatencyMs] what every remote waits before answering (default {@link REMOTE_LATENCY_MS})
 */

/**
 * On a running system: stops its agents, starts one replica of each agent with
 * {@link AGENT_CONCURRENCY}, puts every remote at {@link REMOTE_LATENCY_MS}, and measures
 * orders/s in a closed loop; then adds replicas of every agent up to 2 and 4, measuring each
 * time. The other services stay as they are (default topology). Reusing the system saves a start
 * of every process, which on a loaded 2-core machine takes longer than a measurement.
 *
 * @param {ScalingOptions} options
 */
async function measureAgentScaling(options) {
  const { bench, say } = options;
  const remoteLatencyMs = options.remoteLatencyMs ?? REMOTE_LATENCY_MS;
  const { system } = bench;
  const agents = system.all.filter((p) => p.name.startsWith('agent-') && p.running);
  await Promise.all(agents.map((p) => p.stop()));
  for (const agent of AGENTS) await bench.setRemoteLatency(agent, remoteLatencyMs);
  /** @type {import('./bench-system').ClosedLoopFigures[]} */
  const runs = [];
  // Whether the machine or the system limits a rate: the cores the system's processes used and
  // the cores busy machine-wide (other jobs included) over each window.
  /** @type {(number | undefined)[]} */
  const systemCores = [];
  /** @type {(number | undefined)[]} */
  const machineCores = [];
  let have = 0;
  for (const replicas of REPLICAS) {
    const starts = [];
    for (; have < replicas; have++) for (const agent of AGENTS) starts.push(system.spawn(`agent-${agent}`, { CONCURRENCY: String(AGENT_CONCURRENCY) }));
    await Promise.all(starts);
    const label = `${replicas} replica${replicas > 1 ? 's' : ''} of each agent, remote at ${remoteLatencyMs} ms`;
    const sampler = new ProcessSampler(bench.sampledProcesses().filter((p) => p.role !== 'bench driver'));
    const machine = new WindowCpu(sampler);
    const run = await bench.closedLoop({ label, inFlight: IN_FLIGHT, warmupMs: options.warmupMs, durationMs: options.durationMs, sampler: machine });
    const used = Object.values(sampler.peaksByRole()).reduce((sum, r) => sum + r.cpuSeconds, 0);
    systemCores.push(Math.round((used / run.windowSeconds) * 100) / 100);
    machineCores.push(machine.busyCores());
    say(`  ${label}: ${run.ordersPerSecond} orders/s, p50 ${run.p50Ms} ms; the system used ${systemCores.at(-1)} cores, the machine had ${machineCores.at(-1) ?? '?'} of ${os.cpus().length} busy`);
    runs.push(run);
  }
  return { replicas: REPLICAS, runs, remoteLatencyMs, agentConcurrency: AGENT_CONCURRENCY, inFlight: IN_FLIGHT, systemCores, machineCores, cpus: os.cpus().length };
}

/**
 * A process sampler that also reads the machine's CPU counters when the window starts and stops
 * (closedLoop starts and stops its sampler exactly at the window's edges).
 */
class WindowCpu {
  /** @param {ProcessSampler} sampler */
  constructor(sampler) {
    this.sampler = sampler;
    /** @type {import('./machine-cpu').MachineCpu | undefined} */
    this.first = undefined;
    /** @type {import('./machine-cpu').MachineCpu | undefined} */
    this.last = undefined;
  }

  start() {
    this.first = readMachineCpu();
    this.sampler.start();
  }

  stop() {
    this.last = readMachineCpu();
    return this.sampler.stop();
  }

  busyCores() {
    return busyCores(this.first, this.last, os.cpus().length);
  }
}

module.exports = { measureAgentScaling, SLOW_REMOTE_LATENCY_MS };
