/** One node of a Redis Cluster, as given in a `redis-cluster://` URL. */
export interface RedisNodeAddress {
  host: string;
  port: number;
}

/**
 * Where the system's Redis is, parsed from `REDIS_URL` (or `SasClient`'s `redisUrl`):
 * - `node`: one Redis (`redis://` or `rediss://`), handed to ioredis as it is, as before clusters existed;
 * - `cluster`: a Redis Cluster (`redis-cluster://` or `rediss-cluster://`), reached through ioredis's `Cluster`
 *   from the seed nodes listed; the others are discovered from them.
 */
export type RedisTarget =
  | { kind: 'node'; url: string }
  | {
      kind: 'cluster';
      /** Seed nodes, in the order given. */
      nodes: RedisNodeAddress[];
      /** `rediss-cluster://`: every node is reached over TLS, by the name the cluster announces. */
      tls: boolean;
      username?: string;
      password?: string;
      /** `natMap=announced=reachable,...`: addresses the cluster announces, mapped to where they are reached. */
      natMap: Record<string, RedisNodeAddress>;
    };

/** The URL schemes accepted; the error messages list them. */
export const REDIS_URL_SCHEMES = ['redis://', 'rediss://', 'redis-cluster://', 'rediss-cluster://'] as const;

const CLUSTER_SCHEME = /^(rediss?)-cluster:\/\//;
const FORMS =
  "use redis://[user:password@]host:port for one Redis, or redis-cluster://[user:password@]host:port,host:port,... for a Redis Cluster (rediss:// and rediss-cluster:// for TLS)";

/**
 * Parses a Redis URL; throws an Error saying what is wrong and which forms are accepted. Credentials
 * are percent-decoded and never repeated in a message.
 *
 * @example
 * ```ts
 * parseRedisUrl('rediss-cluster://default:s3cret@node-1.example:6379,node-2.example:6379');
 * // → { kind: 'cluster', tls: true, username: 'default', password: 's3cret', nodes: [...], natMap: {} }
 * ```
 */
export function parseRedisUrl(url: string): RedisTarget {
  if (/^rediss?:\/\//.test(url)) return { kind: 'node', url };
  const scheme = CLUSTER_SCHEME.exec(url);
  if (!scheme) throw new Error(`Redis URL '${redact(url)}' has an unknown scheme; ${FORMS}`);
  const rest = url.slice(scheme[0].length);
  const queryAt = rest.indexOf('?');
  const beforeQuery = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const query = new URLSearchParams(queryAt < 0 ? '' : rest.slice(queryAt + 1));
  const at = beforeQuery.lastIndexOf('@');
  const userinfo = at < 0 ? undefined : beforeQuery.slice(0, at);
  let hosts = at < 0 ? beforeQuery : beforeQuery.slice(at + 1);
  if (hosts.endsWith('/')) hosts = hosts.slice(0, -1);
  if (hosts.includes('/')) {
    throw new Error(`Redis URL '${redact(url)}' names a database; a Redis Cluster has only database 0, so leave the path out`);
  }
  if (hosts === '') throw new Error(`Redis URL '${redact(url)}' lists no node; ${FORMS}`);
  const nodes = hosts.split(',').map((h) => parseAddress(h, `node '${h}' of Redis URL '${redact(url)}'`));
  const unknown = [...query.keys()].filter((k) => k !== 'natMap');
  if (unknown.length > 0) {
    throw new Error(`Redis URL '${redact(url)}' has unknown option(s) ${unknown.join(', ')}; the only option is natMap=announced-host:port=reachable-host:port,...`);
  }
  return {
    kind: 'cluster',
    nodes,
    tls: scheme[1] === 'rediss',
    ...credentials(userinfo),
    natMap: parseNatMap(query.get('natMap'), url),
  };
}

/** Whether `url` names a Redis Cluster (see {@link parseRedisUrl}). */
export function isRedisClusterUrl(url: string): boolean {
  return CLUSTER_SCHEME.test(url);
}

/** The URL with its password replaced, for messages and logs. */
export function redactRedisUrl(url: string): string {
  return redact(url);
}

function redact(url: string): string {
  return url.replace(/^([a-z-]+:\/\/[^:@/]*:)[^@/]*@/, '$1***@');
}

function credentials(userinfo: string | undefined): { username?: string; password?: string } {
  if (userinfo === undefined || userinfo === '') return {};
  const colon = userinfo.indexOf(':');
  const username = decodeURIComponent(colon < 0 ? userinfo : userinfo.slice(0, colon));
  const password = colon < 0 ? undefined : decodeURIComponent(userinfo.slice(colon + 1));
  return { ...(username !== '' ? { username } : {}), ...(password !== undefined ? { password } : {}) };
}

function parseAddress(text: string, what: string): RedisNodeAddress {
  // [::1]:7000 for IPv6; host:port otherwise.
  const match = /^\[([0-9A-Fa-f:.]+)\]:(\d+)$/.exec(text) ?? /^([^:[\]\s]+):(\d+)$/.exec(text);
  const port = match ? Number(match[2]) : NaN;
  if (!match || !(port > 0 && port < 65536)) throw new Error(`${what} is not host:port (a port from 1 to 65535 is required)`);
  return { host: match[1] as string, port };
}

function parseNatMap(value: string | null, url: string): Record<string, RedisNodeAddress> {
  if (value === null || value === '') return {};
  const map: Record<string, RedisNodeAddress> = {};
  for (const pair of value.split(',')) {
    const [from, to, extra] = pair.split('=');
    if (from === undefined || to === undefined || extra !== undefined) {
      throw new Error(`natMap entry '${pair}' of Redis URL '${redact(url)}' is not announced-host:port=reachable-host:port`);
    }
    const announced = parseAddress(from, `natMap entry '${pair}'`);
    map[`${announced.host}:${announced.port}`] = parseAddress(to, `natMap entry '${pair}'`);
  }
  return map;
}
