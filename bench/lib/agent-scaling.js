// @ts-check
'use strict';

/** Issue 8's scaling figure: remote-sim answers after 50 ms, agents go 1 → 2 → 4 replicas. */
const REMOTE_LATENCY_MS = 50;
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
  const { system } = bench;
  const agents = system.all.filter((p) => p.name.startsWith('agent-') && p.running);
  await Promise.all(agents.map((p) => p.stop()));
  for (const agent of AGENTS) await bench.setRemoteLatency(agent, REMOTE_LATENCY_MS);
  /** @type {import('./bench-system').ClosedLoopFigures[]} */
  const runs = [];
  let have = 0;
  for (const replicas of REPLICAS) {
    const starts = [];
    for (; have < replicas; have++) for (const agent of AGENTS) starts.push(system.spawn(`agent-${agent}`, { CONCURRENCY: String(AGENT_CONCURRENCY) }));
    await Promise.all(starts);
    const label = `${replicas} replica${replicas > 1 ? 's' : ''} of each agent`;
    const run = await bench.closedLoop({ label, inFlight: IN_FLIGHT, warmupMs: options.warmupMs, durationMs: options.durationMs });
    say(`  ${label}: ${run.ordersPerSecond} orders/s, p50 ${run.p50Ms} ms`);
    runs.push(run);
  }
  return { replicas: REPLICAS, runs, remoteLatencyMs: REMOTE_LATENCY_MS, agentConcurrency: AGENT_CONCURRENCY, inFlight: IN_FLIGHT };
}

module.exports = { measureAgentScaling };
