import { parseRedisUrl } from '@sas/contracts';

/**
 * Where a Redis URL points, for the start-up log, without credentials: `host:port` (and `/db`
 * when one is named) for one Redis, the seed nodes for a Redis Cluster, and whether TLS is used.
 */
export function describeRedisTarget(url: string): { redis: string; tls: boolean; cluster: boolean } {
  const target = parseRedisUrl(url);
  if (target.kind === 'cluster') {
    return { redis: target.nodes.map((n) => `${n.host}:${n.port}`).join(','), tls: target.tls, cluster: true };
  }
  const parsed = new URL(url);
  const db = parsed.pathname.replace(/^\//, '');
  return { redis: `${parsed.hostname}:${parsed.port || '6379'}${db ? `/${db}` : ''}`, tls: parsed.protocol === 'rediss:', cluster: false };
}
