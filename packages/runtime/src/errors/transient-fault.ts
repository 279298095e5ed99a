import { RedisUnavailableError } from './redis-unavailable-error';
import { TransientError } from './transient-error';

/**
 * MongoDB's codes for "this server cannot take the operation now, another one will soon": a
 * primary stepping down or gone, a node shutting down, a network failure the server saw. They
 * are the driver's retryable-write and retryable-read codes (the Retryable Writes and Retryable
 * Reads specifications), so what the driver would retry once, the service retries as long as it
 * takes.
 */
export const TRANSIENT_MONGO_CODES: ReadonlyMap<number, string> = new Map([
  [6, 'HostUnreachable'],
  [7, 'HostNotFound'],
  [89, 'NetworkTimeout'],
  [91, 'ShutdownInProgress'],
  [189, 'PrimarySteppedDown'],
  [262, 'ExceededTimeLimit'],
  [9001, 'SocketException'],
  [10058, 'LegacyNotPrimary'],
  [10107, 'NotWritablePrimary'],
  [11600, 'InterruptedAtShutdown'],
  [11602, 'InterruptedDueToReplStateChange'],
  [13435, 'NotPrimaryNoSecondaryOk'],
  [13436, 'NotPrimaryOrSecondary'],
]);

/**
 * Error labels by which MongoDB (4.4+) and the driver mark an operation that may succeed if it is
 * run again: `RetryableWriteError` (the server, or the driver on a network error) and
 * `TransientTransactionError` (inside a transaction).
 */
export const TRANSIENT_MONGO_LABELS: readonly string[] = ['RetryableWriteError', 'TransientTransactionError'];

/**
 * Driver errors that say no server could be reached or chosen: the connection dropped, timed out,
 * its pool was cleared after a failure, or no primary was found within `serverSelectionTimeoutMS`
 * (an election in progress). Matched by name, not `instanceof`, because two copies of the driver
 * may be loaded (a workspace can hold two majors), and classes do not match across copies.
 */
export const TRANSIENT_MONGO_ERROR_NAMES: readonly string[] = [
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoPoolClearedError',
  'PoolClearedOnNetworkError',
];

const MAX_CAUSES = 8;

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  errorLabels?: unknown;
  cause?: unknown;
}

function labelsOf(error: ErrorShape): readonly unknown[] {
  // The driver keeps labels behind `errorLabels` (a getter over a private set); a raw reply has the array.
  return Array.isArray(error.errorLabels) ? (error.errorLabels as unknown[]) : [];
}

/** Why one error (not its causes) is a transient MongoDB fault, or undefined. */
function ownMongoReason(error: ErrorShape): string | undefined {
  const label = labelsOf(error).find((l): l is string => typeof l === 'string' && TRANSIENT_MONGO_LABELS.includes(l));
  if (label !== undefined) return `MongoDB error label ${label}`;
  if (typeof error.code === 'number') {
    const codeName = TRANSIENT_MONGO_CODES.get(error.code);
    if (codeName !== undefined) return `MongoDB code ${error.code} ${codeName}`;
  }
  // A write concern error carries its code (checked above): transient for a step-down, not for a bad `w`.
  if (typeof error.name === 'string' && TRANSIENT_MONGO_ERROR_NAMES.includes(error.name)) return error.name;
  return undefined;
}

/** The first reason `own` finds along the `cause` chain (bounded, so a cycle ends). */
function alongCauses(error: unknown, own: (e: ErrorShape) => string | undefined): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSES && typeof current === 'object' && current !== null; depth++) {
    const reason = own(current as ErrorShape);
    if (reason !== undefined) return reason;
    current = (current as ErrorShape).cause;
  }
  return undefined;
}

/**
 * Why `error` says MongoDB cannot take the operation *now*, or undefined: a primary step-down, an
 * election, a shutting-down node or a network failure, recognised by the driver's error labels,
 * MongoDB's codes and the driver's network and server-selection errors. The `cause` chain is
 * followed, so a wrapped driver error counts. Such a fault is the store's, never the message's:
 * consumers retry it without spending the message's deliveries (see `@sas/bus`).
 * A write conflict, a duplicate key or a validation error is not transient: retrying cannot fix it.
 */
export function mongoTransientReason(error: unknown): string | undefined {
  return alongCauses(error, ownMongoReason);
}

/**
 * The first word of Redis's own errors that mean "not now, soon": a Redis Cluster moving or
 * failing over a slot (`MOVED`, `ASK`, `TRYAGAIN`, `CLUSTERDOWN`), a node loading its data or
 * without a reachable master (`LOADING`, `MASTERDOWN`), a write that reached a replica promoted
 * away from under the client (`READONLY`), too few replicas in reach (`NOREPLICAS`).
 */
export const TRANSIENT_REDIS_REPLIES: readonly string[] = ['MOVED', 'ASK', 'TRYAGAIN', 'CLUSTERDOWN', 'LOADING', 'MASTERDOWN', 'READONLY', 'NOREPLICAS'];

/** ioredis's messages and error names for a connection or a cluster that is not there right now. */
const TRANSIENT_REDIS_MESSAGES: readonly RegExp[] = [
  /^Connection is closed\.?$/,
  /^Too many Cluster redirections/,
  /^Failed to refresh slots cache/,
  /^None of startup nodes is available/,
  /^Cluster (is disconnected|isn't ready)/,
  /^Reached the max retries per request limit/,
];
const TRANSIENT_REDIS_ERROR_NAMES: readonly string[] = ['ClusterAllFailedError', 'MaxRetriesPerRequestError', 'RedisUnavailableError'];

interface RedisErrorShape extends ErrorShape {
  message?: unknown;
}

/** Why one error (not its causes) is a transient Redis fault, or undefined. */
function ownRedisReason(error: RedisErrorShape): string | undefined {
  if (error instanceof RedisUnavailableError) return 'RedisUnavailableError';
  if (typeof error.name === 'string' && TRANSIENT_REDIS_ERROR_NAMES.includes(error.name)) return error.name;
  const message = typeof error.message === 'string' ? error.message : '';
  const word = message.split(' ', 1)[0] ?? '';
  if (TRANSIENT_REDIS_REPLIES.includes(word)) return `Redis ${word}`;
  if (TRANSIENT_REDIS_MESSAGES.some((m) => m.test(message))) return `Redis: ${message.slice(0, 100)}`;
  return undefined;
}

/**
 * Why `error` says Redis cannot take the command *now*, or undefined: a restart, a lost
 * connection, a Redis Cluster failing over or moving a slot (decision 56). Recognised by Redis's
 * reply words, ioredis's messages and error names, and {@link RedisUnavailableError} (a send past
 * its deadline); the `cause` chain is followed. Bare socket codes (ECONNREFUSED) are not: a
 * handler's HTTP call fails with them too, and that failure is the remote's. Like a MongoDB step-down, such a
 * fault is never the message's: consumers retry it without spending its deliveries.
 */
export function redisTransientReason(error: unknown): string | undefined {
  return alongCauses(error, ownRedisReason);
}

/**
 * Why `error` is a transient fault (worth trying again later), or undefined: a
 * {@link TransientError} anywhere along its causes, or a transient MongoDB or Redis fault
 * ({@link mongoTransientReason}, {@link redisTransientReason}).
 */
export function transientFaultReason(error: unknown): string | undefined {
  return alongCauses(error, (e) => (e instanceof TransientError ? 'TransientError' : undefined)) ?? mongoTransientReason(error) ?? redisTransientReason(error);
}

/** Whether `error` is a transient fault; see {@link transientFaultReason}. */
export function isTransientFault(error: unknown): boolean {
  return transientFaultReason(error) !== undefined;
}
