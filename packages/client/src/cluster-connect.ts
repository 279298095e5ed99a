import type { Cluster } from 'ioredis';

/** What ioredis and BullMQ say for a connection that ended (BullMQ counts it as a connection error, not a bug). */
const CONNECTION_CLOSED = 'Connection is closed.';

/**
 * Makes `connect()` of a Redis Cluster connection, and of every duplicate it makes, settle once the
 * connection is ready or has ended.
 *
 * ioredis 5.11's `Cluster#connect()` never settles when its ready check fails: during a failover
 * `CLUSTER INFO` answers `cluster_state:fail`, and ioredis disconnects to try again after dropping
 * the listeners that would have settled the promise. The cluster does reconnect and becomes ready,
 * but whoever awaited that promise waits for good. BullMQ awaits it when it re-opens a worker's
 * blocking connection after its wait for jobs went unanswered, so a consumer whose queue lived on
 * the master that died stopped taking jobs for good, every connection answering its PINGs (seen in
 * test/e2e/redis-cluster-failover.test.ts, about one run in four). Here the promise also settles on
 * the connection's next `ready` (resolved) or `end` (rejected). Every Cluster connection gets it
 * (`createRedisConnection` applies it): the services' consumers, an application's `SasClient`, a test's collector.
 */
export function settleClusterConnect(connection: Cluster): Cluster {
  const connect = connection.connect.bind(connection);
  connection.connect = () =>
    new Promise<void>((resolve, reject) => {
      const ready = (): void => {
        stopListening();
        resolve();
      };
      const ended = (): void => {
        stopListening();
        reject(new Error(CONNECTION_CLOSED));
      };
      const stopListening = (): void => {
        connection.off('ready', ready);
        connection.off('end', ended);
      };
      connection.once('ready', ready);
      connection.once('end', ended);
      connect().then(ready, (err: unknown) => {
        stopListening();
        reject(err);
      });
    });
  const duplicate = connection.duplicate.bind(connection) as (...args: unknown[]) => Cluster;
  (connection as { duplicate: (...args: unknown[]) => Cluster }).duplicate = (...args: unknown[]) => {
    const copy = duplicate(...args);
    settleClusterConnect(copy);
    return copy;
  };
  return connection;
}
