import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { parseRedisUrl, type RedisTarget } from '@sas/contracts';
import { settleClusterConnect } from './cluster-connect';

/** A connection to the system's Redis: one node, or a Redis Cluster. BullMQ takes either. */
export type RedisConnection = Redis | Cluster;

/**
 * How long a Redis connection may stay silent (docs/liveness.md). A socket that has owed a reply
 * for longer than its bound is dropped and opened again (ioredis `socketTimeout`), so a half-open
 * link (a load balancer, NAT or sidecar that keeps the connection but passes nothing) cannot hold
 * a command forever. ioredis's `commandTimeout` is not used: it would also cut BullMQ's blocking
 * waits for jobs, and it fails the command but keeps the silent socket.
 */
export interface RedisLiveness {
  /** TCP keepalive's initial delay on every socket. @default 10000 */
  keepAliveMs: number;
  /** Bound of a connection that sends non-blocking commands only. @default 5000 */
  commandTimeoutMs: number;
  /** Bound of a consumer's connections; BullMQ blocks one of them for up to 11 s, so it must be longer. @default 15000 */
  consumerTimeoutMs: number;
}

/** The defaults of {@link RedisLiveness}. */
export const DEFAULT_REDIS_LIVENESS: RedisLiveness = { keepAliveMs: 10_000, commandTimeoutMs: 5_000, consumerTimeoutMs: 15_000 };

/**
 * The ioredis options that bound a connection's silence: `commands` for one that never blocks,
 * `consumer` for a BullMQ worker's (BullMQ duplicates it for its blocking wait, options and all).
 */
export function redisLivenessOptions(use: 'commands' | 'consumer', liveness: RedisLiveness = DEFAULT_REDIS_LIVENESS): RedisOptions {
  return { keepAlive: liveness.keepAliveMs, socketTimeout: use === 'commands' ? liveness.commandTimeoutMs : liveness.consumerTimeoutMs };
}

/** Reconnect quickly but never give up: a Redis restart or a failover must not kill a service. */
const reconnectDelay = (times: number): number => Math.min(times * 100, 2000);

/**
 * Opens an ioredis connection for BullMQ from a Redis URL (see `parseRedisUrl` in `@sas/contracts`):
 * `redis://` / `rediss://` give one `Redis`, as always; `redis-cluster://` / `rediss-cluster://`
 * give a `Cluster` reached through the listed seed nodes. `maxRetriesPerRequest: null` is what
 * BullMQ workers require (blocking commands must wait through a Redis restart instead of failing).
 * `options` apply to every node's connection; TCP keepalive is on unless they say otherwise (see
 * {@link redisLivenessOptions} for the bound on silence).
 */
export function createRedisConnection(url: string, options: RedisOptions = {}): RedisConnection {
  const target = parseRedisUrl(url);
  const nodeOptions: RedisOptions = { maxRetriesPerRequest: null, enableReadyCheck: true, retryStrategy: reconnectDelay, keepAlive: DEFAULT_REDIS_LIVENESS.keepAliveMs, ...options };
  if (target.kind === 'node') return releasingSocketTimer(new Redis(target.url, nodeOptions));
  return settleClusterConnect(releasingSocketTimers(new Cluster(target.nodes, clusterOptions(target, nodeOptions))));
}

/**
 * ioredis (5.11) arms its `socketTimeout` timer when it writes a command and clears it only when
 * data arrives, so a connection closed with a command in flight (BullMQ's blocking wait for jobs)
 * keeps the timer, and with it the process, alive until the timeout: a CLI command would linger
 * 15 s after its work was done. The timer is cleared once the connection has ended, here and on
 * every duplicate (BullMQ opens its blocking connection as one).
 */
function releasingSocketTimer(redis: Redis): Redis {
  redis.on('end', () => clearTimeout((redis as unknown as { socketTimeoutTimer?: NodeJS.Timeout }).socketTimeoutTimer));
  const duplicate = redis.duplicate.bind(redis);
  redis.duplicate = (override?: Partial<RedisOptions>) => releasingSocketTimer(duplicate(override));
  return redis;
}

/** {@link releasingSocketTimer} for each node of a cluster, and for its duplicates. */
function releasingSocketTimers(cluster: Cluster): Cluster {
  cluster.on('+node', (node: Redis) => releasingSocketTimer(node));
  const duplicate = cluster.duplicate.bind(cluster);
  cluster.duplicate = (...args: Parameters<Cluster['duplicate']>) => releasingSocketTimers(duplicate(...args));
  return cluster;
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
