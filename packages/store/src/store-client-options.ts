import type { MongoClientOptions } from 'mongodb';

/**
 * The query options of a `mongodb://` URL, by lower-cased name. The URL may list several hosts
 * (`h1,h2,h3`), which `new URL` refuses, so only the part after `?` is read.
 */
function urlOptionNames(url: string): Set<string> {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  return new Set([...new URLSearchParams(query).keys()].map((k) => k.toLowerCase()));
}

/**
 * How long MongoDB may keep a service waiting (docs/liveness.md). The driver's own defaults
 * (30 s to connect, no socket timeout, a heartbeat every 10 s) left a scheduler cut from MongoDB
 * silent for half a minute; these notice a lost server within a few seconds.
 */
export interface StoreLiveness {
  /** How long an operation waits for a usable server before failing (transient, retried). @default 5000 */
  serverSelectionTimeoutMs: number;
  /** TCP connect, and each heartbeat of the driver's monitor. @default 5000 */
  connectTimeoutMs: number;
  /** Longest wait for a reply on a socket; the workload's calls are point reads and writes. @default 20000 */
  socketTimeoutMs: number;
  /** How often the driver checks each server. @default 2000 */
  heartbeatMs: number;
  /** Pooled connections idle this long are closed, before a NAT or load balancer drops them silently. @default 60000 */
  maxIdleMs: number;
}

/** The defaults of {@link StoreLiveness}. */
export const DEFAULT_STORE_LIVENESS: StoreLiveness = { serverSelectionTimeoutMs: 5_000, connectTimeoutMs: 5_000, socketTimeoutMs: 20_000, heartbeatMs: 2_000, maxIdleMs: 60_000 };

/**
 * The driver options every service connects with. What each buys on a replica set:
 *
 * - `w: 'majority'`: a write is acknowledged once a majority of members has it (and, with
 *   MongoDB's default `writeConcernMajorityJournalDefault`, has journaled it), so a failover
 *   cannot roll back a commit the engine already acted on (a dispatch sent, a status published).
 * - `retryWrites`: the driver retries a single-document write once, after selecting the primary
 *   again, when it failed on a step-down or a network error; the server recognises the retry by
 *   its session and transaction number and applies it at most once.
 * - `retryReads`: the same single retry for reads.
 *
 * - the bounds of {@link StoreLiveness}.
 *
 * A URL that sets one of these (`w=1`, `retryWrites=false`, `socketTimeoutMS=…`) keeps its own value: the URL is the
 * operator's word. The read preference is not taken from here: the store's database reads the
 * primary whatever the URL says (see {@link connectStore}).
 */
export function storeClientOptions(url: string, liveness: StoreLiveness = DEFAULT_STORE_LIVENESS): MongoClientOptions {
  const inUrl = urlOptionNames(url);
  const unlessInUrl = <K extends keyof MongoClientOptions>(name: K, value: MongoClientOptions[K]): Partial<MongoClientOptions> =>
    inUrl.has(name.toLowerCase()) ? {} : { [name]: value };
  return {
    ...unlessInUrl('serverSelectionTimeoutMS', liveness.serverSelectionTimeoutMs),
    ...unlessInUrl('connectTimeoutMS', liveness.connectTimeoutMs),
    ...unlessInUrl('socketTimeoutMS', liveness.socketTimeoutMs),
    ...unlessInUrl('heartbeatFrequencyMS', liveness.heartbeatMs),
    ...unlessInUrl('maxIdleTimeMS', liveness.maxIdleMs),
    maxPoolSize: 20,
    ...(inUrl.has('w') || inUrl.has('journal') || inUrl.has('wtimeoutms') ? {} : { writeConcern: { w: 'majority' } }),
    ...(inUrl.has('retrywrites') ? {} : { retryWrites: true }),
    ...(inUrl.has('retryreads') ? {} : { retryReads: true }),
  };
}
