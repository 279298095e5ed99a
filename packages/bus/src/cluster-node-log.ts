import { Cluster, type Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RedisConnection } from '@sas/client';

/**
 * Logs each Redis Cluster node that leaves a connection while the connection is in use: its socket
 * closed (a master killed or cut off, or a socket the heartbeat dropped) or a failover gave its
 * slots to another node. ioredis rides a failover out by itself, retrying the commands that met the
 * dead node, so without this line nothing in a service's log would say that one happened.
 *
 * Only a node this connection had used (it became ready on it), and once: at start ioredis adds
 * and drops nodes it never talks to (the seed list, replicas) while it learns the cluster's shape,
 * and while a master is down it re-creates its connection on every redirection to it and drops it
 * again, which would repeat the line many times a second. A node is reported again only after it
 * has answered since. Not logged while the connection is being closed on purpose. A plain `Redis`
 * connection has no nodes.
 */
export function logClusterNodeLoss(connection: RedisConnection, logger: Logger, fields: Record<string, unknown>): void {
  if (!(connection instanceof Cluster)) return;
  const used = new Set<string>();
  connection.on('+node', (node: Redis) => {
    node.once('ready', () => used.add(addressOf(node)));
  });
  connection.on('-node', (node: Redis) => {
    if (connection.status === 'disconnecting' || connection.status === 'close' || connection.status === 'end') return;
    const address = addressOf(node);
    if (!used.delete(address)) return;
    logger.warn(
      { ...fields, node: address },
      `Redis Cluster node ${address} left this connection (its socket closed, or a failover moved its slots); commands for its slots go to the node that serves them now`,
    );
  });
}

function addressOf(node: Redis): string {
  return `${node.options.host ?? ''}:${String(node.options.port ?? '')}`;
}
