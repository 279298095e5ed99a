// @ts-check
'use strict';

const { startRedisCluster } = require('@sas/stack');
const { BenchSystem } = require('./bench-system');

/** Orders in flight: the throughput run's. */
const IN_FLIGHT = 64;
/** Shard counts compared: one master holding every slot, and three. */
const SHARDS = [1, 3];
/**
 * Orders each fresh system runs unmeasured before its window. Fewer than the main system's
 * warm-up, to keep the phase short; the same for both shard counts, so the ratio stays fair.
 */
const MAX_WARMUP_ORDERS = 100;

/**
 * @typedef {object} ClusterShardsOptions
 * @property {Omit<import('./bench-system').BenchSystemOptions, 'redis' | 'name' | 'logDir'>} system MongoDB, say, cleanup, stallMs
 * @property {string} runId
 * @property {string} logDir
 * @property {number} warmupOrders the main system's warm-up; at most {@link MAX_WARMUP_ORDERS} of it is used here
 * @property {number} warmupMs
 * @property {number} durationMs
 * @property {(line: string) => void} say
 */

/**
 * Orders/s of the whole system at {@link IN_FLIGHT} in flight on a Redis Cluster of 1 master and
 * of 3 masters (no replicas: sharding, not replication, is compared), each a fresh system of the
 * default topology reached through `redis-cluster://`. With one hash tag per queue, 3 shards
 * spread the queues over 3 Redis processes; whether that helps depends on Redis being the limit.
 *
 * @param {ClusterShardsOptions} options
 */
async function measureClusterShards(options) {
  const { say } = options;
  const { cleanup } = options.system;
  /** @type {import('./bench-system').ClosedLoopFigures[]} */
  const runs = [];
  for (const masters of SHARDS) {
    cleanup.throwIfInterrupted();
    const cluster = await startRedisCluster({ masters, replicasPerMaster: 0 });
    const stopCluster = cleanup.push(`the Redis cluster of ${masters} master(s)`, () => cluster.stop());
    const bench = await BenchSystem.start({
      ...options.system,
      // The cluster's processes are not sampled: this phase reports orders/s only.
      redis: { url: cluster.url, pid: () => undefined },
      name: `bench-c${masters}-${options.runId}`,
      logDir: `${options.logDir}/cluster-${masters}`,
    });
    try {
      const warmupOrders = Math.min(options.warmupOrders, MAX_WARMUP_ORDERS);
      if (warmupOrders > 0) await bench.warmUp({ orders: warmupOrders, inFlight: IN_FLIGHT });
      const label = `${masters} shard${masters > 1 ? 's' : ''}, ${IN_FLIGHT} in flight`;
      const run = await bench.closedLoop({ label, inFlight: IN_FLIGHT, warmupMs: options.warmupMs, durationMs: options.durationMs });
      say(`  ${label}: ${run.ordersPerSecond} orders/s, p50 ${run.p50Ms} ms`);
      runs.push(run);
    } finally {
      await bench.stop();
      await stopCluster();
    }
  }
  return { shards: SHARDS, runs, inFlight: IN_FLIGHT };
}

module.exports = { measureClusterShards };
