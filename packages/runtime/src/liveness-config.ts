import { z } from 'zod';

/** BullMQ blocks a worker's connection for up to 10 s (its `maximumBlockTimeout`) and then waits 1 s more before it gives up on the reply itself. */
const LONGEST_BULLMQ_BLOCK_MS = 11_000;

const ms = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/**
 * How long each connection may stay silent (docs/liveness.md). Spread into {@link CommonConfig};
 * every service reads the same names.
 */
export const LivenessConfig = {
  /** TCP keepalive on every Redis socket (initial delay): a peer that vanished is noticed by the kernel. */
  REDIS_KEEPALIVE_MS: ms(10_000),
  /**
   * Longest wait for a reply on a connection that sends only non-blocking commands (sends, queue
   * reads, the dashboard's): past it the socket is dropped and opened again, and its commands fail.
   */
  REDIS_COMMAND_TIMEOUT_MS: ms(5_000),
  /**
   * The same for a consumer's two connections (BullMQ's blocking wait for jobs shares its bound).
   * It must outlast BullMQ's longest blocking wait, else idle consumers would reconnect for nothing.
   */
  REDIS_CONSUMER_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(LONGEST_BULLMQ_BLOCK_MS + 1_000, `REDIS_CONSUMER_TIMEOUT_MS must be at least ${LONGEST_BULLMQ_BLOCK_MS + 1_000}: BullMQ's wait for jobs lasts up to ${LONGEST_BULLMQ_BLOCK_MS} ms`)
    .default(15_000),
  /** A consumer (or the sender) whose heartbeat PING goes unanswered this long logs a stall and turns `/readyz` unready. */
  REDIS_STALL_MS: ms(3_000),
  /** How long an operation waits for a usable MongoDB server before it fails (a transient fault, retried). */
  MONGO_SERVER_SELECTION_TIMEOUT_MS: ms(5_000),
  /** TCP connect (and, for the driver's monitor, each heartbeat) to MongoDB. */
  MONGO_CONNECT_TIMEOUT_MS: ms(5_000),
  /** Longest wait for a reply on a MongoDB socket; the workload's calls are point reads and writes. */
  MONGO_SOCKET_TIMEOUT_MS: ms(20_000),
  /** How often the driver checks each MongoDB server (a lost primary is noticed within this plus the connect timeout). */
  MONGO_HEARTBEAT_MS: z.coerce.number().int().min(500).default(2_000),
  /** Pooled MongoDB connections idle this long are closed, before a NAT or load balancer drops them silently. */
  MONGO_MAX_IDLE_MS: ms(60_000),
  /** A store call (or the store's own ping) that waits this long logs a stall naming its collection and turns `/readyz` unready. */
  MONGO_STALL_MS: ms(3_000),
};

/** The Redis bounds of one process, from its configuration. */
export interface RedisLivenessSettings {
  keepAliveMs: number;
  commandTimeoutMs: number;
  consumerTimeoutMs: number;
  stallMs: number;
}

/** The MongoDB bounds of one process, from its configuration. */
export interface MongoLivenessSettings {
  serverSelectionTimeoutMs: number;
  connectTimeoutMs: number;
  socketTimeoutMs: number;
  heartbeatMs: number;
  maxIdleMs: number;
  stallMs: number;
}

/** The parsed liveness fields of a configuration. */
export type LivenessFields = { [K in keyof typeof LivenessConfig]: number };

/** The Redis part of a parsed configuration. */
export function redisLivenessOf(config: Pick<LivenessFields, 'REDIS_KEEPALIVE_MS' | 'REDIS_COMMAND_TIMEOUT_MS' | 'REDIS_CONSUMER_TIMEOUT_MS' | 'REDIS_STALL_MS'>): RedisLivenessSettings {
  return {
    keepAliveMs: config.REDIS_KEEPALIVE_MS,
    commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    consumerTimeoutMs: config.REDIS_CONSUMER_TIMEOUT_MS,
    stallMs: config.REDIS_STALL_MS,
  };
}

/** The MongoDB part of a parsed configuration. */
export function mongoLivenessOf(
  config: Pick<LivenessFields, 'MONGO_SERVER_SELECTION_TIMEOUT_MS' | 'MONGO_CONNECT_TIMEOUT_MS' | 'MONGO_SOCKET_TIMEOUT_MS' | 'MONGO_HEARTBEAT_MS' | 'MONGO_MAX_IDLE_MS' | 'MONGO_STALL_MS'>,
): MongoLivenessSettings {
  return {
    serverSelectionTimeoutMs: config.MONGO_SERVER_SELECTION_TIMEOUT_MS,
    connectTimeoutMs: config.MONGO_CONNECT_TIMEOUT_MS,
    socketTimeoutMs: config.MONGO_SOCKET_TIMEOUT_MS,
    heartbeatMs: config.MONGO_HEARTBEAT_MS,
    maxIdleMs: config.MONGO_MAX_IDLE_MS,
    stallMs: config.MONGO_STALL_MS,
  };
}
