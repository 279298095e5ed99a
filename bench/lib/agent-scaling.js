// @ts-check
'use strict';

const { join } = require('node:path');
const { BenchSystem } = require('./bench-system');

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
 * @property {Omit<import('./bench-system').BenchSystemOptions, 'name' | 'topology' | 'roleEnv' | 'logDir'>} system
 * @property {string} name
 * @property {string} logDir
 * @property {number} warmupMs
 * @property {number} durationMs
 * @property {(line: string) => void} say
 */

/**
 * Starts a system with one replica of each agent, measures orders/s in a closed loop, adds
 * replicas of every agent up to 2 and then 4, and measures again each time. The other services
 * stay as in the default topology.
 *
 * @param {ScalingOptions} options
 */
async function measureAgentScaling(options) {
  const { say } = options;
  const bench = await BenchSystem.start({
    ...options.system,
    name: options.name,
    topology: { agents: Object.fromEntries(AGENTS.map((a) => [a, 1])) },
    roleEnv: { agent: { CONCURRENCY: String(AGENT_CONCURRENCY) } },
    logDir: join(options.logDir, 'scaling'),
  });
  try {
    for (const agent of AGENTS) await bench.setRemoteLatency(agent, REMOTE_LATENCY_MS);
    /** @type {import('./bench-system').ClosedLoopFigures[]} */
    const runs = [];
    for (const replicas of REPLICAS) {
      const have = bench.system.byRole(`agent-${AGENTS[0] ?? ''}`).length;
      for (let i = have; i < replicas; i++) for (const agent of AGENTS) await bench.system.spawn(`agent-${agent}`);
      const run = await bench.closedLoop({ label: `${replicas} replica${replicas > 1 ? 's' : ''}`, inFlight: IN_FLIGHT, warmupMs: options.warmupMs, durationMs: options.durationMs });
      say(`  ${replicas} replica${replicas > 1 ? 's' : ''} of each agent: ${run.ordersPerSecond} orders/s, p50 ${run.p50Ms} ms`);
      runs.push(run);
    }
    return { replicas: REPLICAS, runs, remoteLatencyMs: REMOTE_LATENCY_MS, agentConcurrency: AGENT_CONCURRENCY, inFlight: IN_FLIGHT };
  } finally {
    say('  stopping the scaling system ...');
    await bench.stop();
  }
}

module.exports = { measureAgentScaling };
