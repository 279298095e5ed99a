import type { Cluster, Redis } from 'ioredis';
import { keySlot } from './key-slot';
import { ReplicaWait } from './replica-wait';

const KEY = '{sas:app.status}:app.status:id';
const SLOT = keySlot(KEY);

/** A node connection as ioredis's cluster pool holds it: its socket changes when it reconnects. */
function node(port: number, answer: () => Promise<unknown>): Redis & { calls: unknown[][] } {
  const calls: unknown[][] = [];
  return {
    options: { host: '127.0.0.1', port },
    stream: {},
    status: 'ready',
    calls,
    call: (...args: unknown[]) => {
      calls.push(args);
      return answer();
    },
  } as unknown as Redis & { calls: unknown[][] };
}

/** The part of ioredis's `Cluster` that ReplicaWait reads: the slot map and the pool's master connections. */
function cluster(slotNodes: string[], masters: Redis[]): Cluster {
  const slots: string[][] = [];
  slots[SLOT] = slotNodes;
  return { slots, nodes: () => masters, refreshSlotsCache: () => undefined } as unknown as Cluster;
}

describe('ReplicaWait', () => {
  it('sends no WAIT where the master has no replica', () => {
    const master = node(7000, () => Promise.resolve(1));
    expect(new ReplicaWait(cluster(['127.0.0.1:7000'], [master]), 500).begin([KEY])).toBeUndefined();
    expect(master.calls).toEqual([]);
  });

  it("confirms once one replica acknowledged, asking over the connection of the slot's master", async () => {
    const other = node(7001, () => Promise.resolve(1));
    const master = node(7000, () => Promise.resolve(1));
    const check = new ReplicaWait(cluster(['127.0.0.1:7000', '127.0.0.1:7003'], [other, master]), 500).begin([KEY]);
    await expect(check?.confirmed()).resolves.toBe(true);
    expect(master.calls).toEqual([['WAIT', 1, 500]]);
    expect(other.calls).toEqual([]);
  });

  it('does not confirm when no replica acknowledged in time', async () => {
    const master = node(7000, () => Promise.resolve(0));
    const check = new ReplicaWait(cluster(['127.0.0.1:7000', '127.0.0.1:7003'], [master]), 500).begin([KEY]);
    await expect(check?.confirmed()).resolves.toBe(false);
  });

  it('does not confirm writes whose connection was opened again since they began: its WAIT would count none of them', async () => {
    const master = node(7000, () => Promise.resolve(1));
    const check = new ReplicaWait(cluster(['127.0.0.1:7000', '127.0.0.1:7003'], [master]), 500).begin([KEY]);
    (master as { stream: unknown }).stream = {};
    await expect(check?.confirmed()).resolves.toBe(false);
    expect(master.calls).toEqual([]);
  });

  it('does not confirm when the slot moved to another master since the writes began', async () => {
    const master = node(7000, () => Promise.resolve(1));
    const promoted = node(7003, () => Promise.resolve(1));
    const map = cluster(['127.0.0.1:7000', '127.0.0.1:7003'], [master, promoted]);
    const check = new ReplicaWait(map, 500).begin([KEY]);
    map.slots[SLOT] = ['127.0.0.1:7003', '127.0.0.1:7004'];
    await expect(check?.confirmed()).resolves.toBe(false);
  });

  it('does not confirm when WAIT fails (the node became a replica) or the slot map is not known yet', async () => {
    const master = node(7000, () => Promise.reject(new Error('ERR WAIT cannot be used with replica instances')));
    await expect(new ReplicaWait(cluster(['127.0.0.1:7000', '127.0.0.1:7003'], [master]), 500).begin([KEY])?.confirmed()).resolves.toBe(false);
    await expect(new ReplicaWait(cluster([], [master]), 500).begin([KEY])?.confirmed()).resolves.toBe(false);
  });
});
