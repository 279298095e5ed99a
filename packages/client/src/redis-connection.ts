import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { parseRedisUrl, type RedisTarget } from '@sas/contracts';

/** A connection to the system's Redis: one node, or a Redis Cluster. BullMQ takes either. */
export type RedisConnection = Redis | Cluster;

/** Reconnect quickly but never give up: a Redis restart or a failover must not kill a service. */
const reconnectDelay = (times: number): number => Math.min(times * 100, 2000);

/**
 * Opens an ioredis connection for BullMQ from a Redis URL (see `parseRedisUrl` in `@sas/contracts`):
 * `redis://` / `rediss://` give one `Redis`, as always; `redis-cluster://` / `rediss-cluster://`
 * give a `Cluster` reached through the listed seed nodes. `maxRetriesPerRequest: null` is what
 * BullMQ workers require (blocking commands must wait through a Redis restart instead of failing).
 * `options` apply to every node's connection.
 */
export function createRedisConnection(url: string, options: RedisOptions = {}): RedisConnection {
  const target = parseRedisUrl(url);
  const nodeOptions: RedisOptions = { maxRetriesPerRequest: null, enableReadyCheck: true, retryStrategy: reconnectDelay, ...options };
  if (target.kind === 'node') return new Redis(target.url, nodeOptions);
  return new Cluster(target.nodes, clusterOptions(target, nodeOptions));
}

/**
 * How the `Cluster` client rides out a failover (decision 56): while a dead master's replica is
 * being promoted, commands for its slots fail with a closed connection, then `CLUSTERDOWN` or
 * `MOVED`. ioredis retries each one after a delay, at most `maxRedirections` times; 100 tries
 * 200 ms apart cover about 20 s, several times what a failover takes with a `cluster-node-timeout`
 * of a few seconds. A command still failing then reaches its caller as a transient Redis fault
 * (`redisTransientReason` in `@sas/runtime`), which is retried and never dead-lettered.
 */
function clusterOptions(target: Extract<RedisTarget, { kind: 'cluster' }>, nodeOptions: RedisOptions): ClusterOptions {
  const { retryStrategy: _perNodeRetriesAreTheClusters, ...redisOptions } = nodeOptions;
  return {
    redisOptions: {
      ...redisOptions,
      ...(target.username !== undefined ? { username: target.username } : {}),
      ...(target.password !== undefined ? { password: target.password } : {}),
      ...(target.tls ? { tls: {} } : {}),
    },
    clusterRetryStrategy: reconnectDelay,
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    retryDelayOnTryAgain: 200,
    maxRedirections: 100,
    slotsRefreshTimeout: 2000,
    // With TLS the certificate names the host: connect by the names the cluster announces instead
    // of addresses resolved here (ioredis's advice for ElastiCache and MemoryDB in TLS mode).
    ...(target.tls ? { dnsLookup: keepHostName } : {}),
    ...(Object.keys(target.natMap).length > 0 ? { natMap: target.natMap } : {}),
  };
}

function keepHostName(address: string, callback: (err: NodeJS.ErrnoException | null, address: string, family?: number) => void): void {
  callback(null, address);
}
