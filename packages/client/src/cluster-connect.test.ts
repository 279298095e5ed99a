import { Cluster } from 'ioredis';
import { settleClusterConnect } from './cluster-connect';

/**
 * A Cluster that never connects by itself (lazyConnect), whose own connect() is replaced by one
 * that never settles: what ioredis 5.11 returns when the ready check meets cluster_state:fail.
 */
function clusterWhoseConnectHangs(): Cluster {
  const cluster = new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true });
  cluster.connect = () => new Promise<void>(() => undefined);
  return cluster;
}

type Outcome = 'pending' | 'resolved' | `rejected: ${string}`;

function track(promise: Promise<void>): () => Outcome {
  let outcome: Outcome = 'pending';
  promise.then(
    () => (outcome = 'resolved'),
    (e: Error) => (outcome = `rejected: ${e.message}`),
  );
  return () => outcome;
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('settleClusterConnect', () => {
  it('settles a hung connect() once the cluster is ready after all', async () => {
    const cluster = clusterWhoseConnectHangs();
    settleClusterConnect(cluster);
    const outcome = track(cluster.connect());
    await settle();
    expect(outcome()).toBe('pending');
    cluster.emit('ready');
    await settle();
    expect(outcome()).toBe('resolved');
  });

  it('rejects a hung connect() as a closed connection when the cluster ends instead', async () => {
    const cluster = clusterWhoseConnectHangs();
    settleClusterConnect(cluster);
    const outcome = track(cluster.connect());
    cluster.emit('end');
    await settle();
    expect(outcome()).toBe('rejected: Connection is closed.');
  });

  it('does the same for the duplicates the cluster makes (BullMQ opens its blocking connection as one)', async () => {
    const cluster = new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true });
    cluster.duplicate = () => clusterWhoseConnectHangs();
    settleClusterConnect(cluster);
    const copy = cluster.duplicate();
    const outcome = track(copy.connect());
    copy.emit('ready');
    await settle();
    expect(outcome()).toBe('resolved');
  });

  it('keeps the answer of a connect() that settles by itself', async () => {
    const cluster = new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true });
    cluster.connect = () => Promise.reject(new Error('Redis is already connecting/connected'));
    settleClusterConnect(cluster);
    const outcome = track(cluster.connect());
    await settle();
    expect(outcome()).toBe('rejected: Redis is already connecting/connected');
  });
});
