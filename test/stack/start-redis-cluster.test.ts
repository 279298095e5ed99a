import { Cluster } from 'ioredis';
import { createRedisConnection, type RedisConnection } from '@sas/client';
import { parseRedisUrl } from '@sas/contracts';
import { rawRedisCommand, startRedisCluster, type RedisCluster } from '@sas/stack';
import { waitFor } from '@sas/testkit';

describe('startRedisCluster', () => {
  let cluster: RedisCluster;
  let client: RedisConnection;

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
    client = createRedisConnection(cluster.url);
  });

  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it('starts 3 masters that share every slot, each with a replica, reachable through its redis-cluster:// URL', async () => {
    expect(parseRedisUrl(cluster.url)).toMatchObject({ kind: 'cluster', nodes: cluster.ports.map((port) => ({ host: '127.0.0.1', port })) });
    expect(cluster.ports).toHaveLength(6);
    const masters = await cluster.masterPorts();
    expect(masters).toHaveLength(3);
    for (const port of cluster.ports) {
      await expect(rawRedisCommand(port, 'CLUSTER INFO')).resolves.toContain('cluster_state:ok');
    }
    // Keys of different hash tags land on different masters: the client follows the slots.
    await Promise.all(['{a}', '{b}', '{c}', '{d}', '{e}'].map((tag) => client.set(`${tag}:k`, tag)));
    await expect(client.get('{c}:k')).resolves.toBe('{c}');
  });

  it('promotes the replica of a master killed with kill -9, and keeps what was written before', async () => {
    const [first] = await cluster.masterPorts();
    const slotOfFirst = await waitFor(async () => {
      for (const tag of 'abcdefghijklmnop') {
        const port = await ownerPort(`{${tag}}:k`);
        if (port === first) return tag;
      }
      return undefined;
    }, { timeoutMs: 10_000, description: 'a hash tag served by the first master' });
    // Written and WAITed for on the same connection to the master: WAIT counts the replicas that
    // have the writes of the connection that sends it (a fresh connection's WAIT returns at once).
    if (!(client instanceof Cluster)) throw new Error('a redis-cluster:// URL gives a Cluster client');
    const master = client.nodes('master').find((n) => n.options.port === first);
    if (!master) throw new Error(`no cluster connection to the first master (port ${first})`);
    await master.set(`{${slotOfFirst}}:k`, 'before the kill');
    await expect(master.call('WAIT', 1, 5000)).resolves.toBe(1);

    const { killedPort, promotedPort } = await cluster.killMaster(0);
    expect(killedPort).toBe(first);
    expect(await cluster.masterPorts()).toContain(promotedPort);
    expect(await cluster.masterPorts()).not.toContain(killedPort);
    await expect(client.get(`{${slotOfFirst}}:k`)).resolves.toBe('before the kill');
  });

  async function ownerPort(key: string): Promise<number | undefined> {
    const slot = Number(await client.cluster('KEYSLOT', key));
    const slots = await client.cluster('SLOTS');
    return slots.find(([from, to]) => slot >= from && slot <= to)?.[2]?.[1];
  }
});

describe('startRedisCluster with one master', () => {
  it('gives it every slot and announces an address clients can reach (a lone node learns none from others)', async () => {
    const cluster = await startRedisCluster({ masters: 1, replicasPerMaster: 0 });
    const client = createRedisConnection(cluster.url);
    try {
      await client.set('{one}:k', 'v');
      await expect(client.get('{one}:k')).resolves.toBe('v');
      const slots = await client.cluster('SLOTS');
      expect(slots.map(([from, to, node]) => [from, to, node?.[0], node?.[1]])).toEqual([[0, 16383, '127.0.0.1', cluster.ports[0]]]);
    } finally {
      client.disconnect();
      await cluster.stop();
    }
  });

  it('refuses 2 masters and replicas of a single master, saying why', async () => {
    await expect(startRedisCluster({ masters: 2 })).rejects.toThrow('masters must be 1, or 3 and more (got 2)');
    await expect(startRedisCluster({ masters: 1, replicasPerMaster: 1 })).rejects.toThrow('replicas need masters ≥ 3');
  });
});
