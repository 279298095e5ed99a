import { Cluster } from 'ioredis';

let installed = false;

/**
 * In this test process, makes every Redis Cluster connection's `connect()` also settle on the
 * connection's next `ready` (or reject on `end`). The services do this for their consumers
 * (`settleClusterConnect` in packages/bus/src/cluster-connect.ts, docs/liveness.md): ioredis 5.11's
 * `Cluster#connect()` never settles when its ready check meets `cluster_state:fail`, and BullMQ
 * awaits it to re-open a worker's blocking connection. The test's own status collector is such a
 * worker, on `app.status`, and without this it could stop for good at a failover (seen once: every
 * order Processed in MongoDB, the collector short of their Processed events 40 s later), failing a
 * run for a fault of the test's consumer, not of sas. Once per process; idempotent.
 */
export function settleClusterConnectsInThisProcess(): void {
  if (installed) return;
  installed = true;
  const connect = Cluster.prototype.connect;
  Cluster.prototype.connect = function settledConnect(this: Cluster): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const ready = (): void => {
        stopListening();
        resolve();
      };
      const ended = (): void => {
        stopListening();
        reject(new Error('Connection is closed.'));
      };
      const stopListening = (): void => {
        this.off('ready', ready);
        this.off('end', ended);
      };
      this.once('ready', ready);
      this.once('end', ended);
      connect.call(this).then(ready, (err: unknown) => {
        stopListening();
        reject(err);
      });
    });
  };
}
