import { Bus } from '@sas/bus';
import { queueKeyPrefix } from '@sas/contracts';
import { createLogger } from '@sas/runtime';
import { freePort, rawRedisCommand, startRedisCluster, type RedisCluster } from '@sas/stack';
import { uniqueName, waitFor } from '@sas/testkit';

const T0 = Date.UTC(2030, 0, 1);
const PREFIX = uniqueName('replica-wait');

function openBus(redisUrl: string): Bus {
  return new Bus({ redisUrl, prefix: PREFIX, instanceId: 'replica-wait-1', logger: createLogger({ service: 'replica-wait-test', instanceId: 'replica-wait-1', level: 'silent' }), clock: { now: () => T0 } });
}

function infoField(info: string | undefined, name: string): string | undefined {
  return info?.match(new RegExp(`^${name}:([^\\r\\n]*)`, 'm'))?.[1];
}

/** A BullMQ key of `queue` as the bus writes it: its slot is the queue's. */
const keyOf = (queue: string): string => `${queueKeyPrefix(PREFIX, queue)}:${queue}:wait`;

describe('Bus.replicaCheck with one Redis', () => {
  it('offers no check, so nothing waits for a replica', async () => {
    const bus = openBus(`redis://127.0.0.1:${await freePort()}`);
    try {
      expect(bus.replicaCheck(['app.status'])).toBeUndefined();
    } finally {
      await bus.close();
    }
  });
});

describe('Bus.replicaCheck on a Redis Cluster with a replica per master', () => {
  let cluster: RedisCluster;
  let bus: Bus;
  /** A queue served by each master, by the master's index. */
  const queues: string[] = [];

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
    bus = openBus(cluster.url);
    for (let i = 0; queues.filter(Boolean).length < 3; i++) {
      const queue = `rw-${i}`;
      const index = await cluster.masterIndexServing(keyOf(queue));
      queues[index] ??= queue;
    }
    // A fresh cluster lists its replicas in CLUSTER SLOTS once they report a replication offset,
    // and the bus reads the slot map again every 2 s: until then it knows of no replica to wait for.
    await waitFor(
      async () => {
        await Promise.all(queues.map((q) => bus.send(q, {}, { jobId: 'warm-up' })));
        return queues.every((q) => bus.replicaCheck([q]) !== undefined);
      },
      { timeoutMs: 30_000, description: 'the bus to know of a replica of every master' },
    );
  });
  afterAll(async () => {
    await bus?.close();
    await cluster?.stop();
  });

  async function masterAndReplica(queue: string): Promise<{ index: number; master: number; replica: number; replicaPid: number }> {
    const index = await cluster.masterIndexServing(keyOf(queue));
    const master = (await cluster.masterPorts())[index] as number;
    const replica = Number(infoField(await rawRedisCommand(master, 'INFO replication'), 'slave0')?.match(/port=(\d+)/)?.[1]);
    const replicaPid = Number(infoField(await rawRedisCommand(replica, 'INFO server'), 'process_id'));
    return { index, master, replica, replicaPid };
  }

  it("confirms a send once the master's replica has it, and not while that replica is stopped", async () => {
    const queue = queues[0] as string;
    const check = bus.replicaCheck([queue]);
    await bus.send(queue, { n: 1 }, { jobId: 'confirmed-1' });
    await expect(check?.confirmed()).resolves.toBe(true);

    const { replicaPid } = await masterAndReplica(queue);
    process.kill(replicaPid, 'SIGSTOP');
    try {
      const stalled = bus.replicaCheck([queue]);
      await bus.send(queue, { n: 2 }, { jobId: 'unconfirmed-2' });
      await expect(stalled?.confirmed()).resolves.toBe(false);
    } finally {
      process.kill(replicaPid, 'SIGCONT');
    }
  });

  it('costs a round trip to the replica per delivery', async () => {
    const queue = queues[1] as string;
    const rounds = 300;
    const timed = async (confirm: boolean): Promise<number> => {
      const start = process.hrtime.bigint();
      for (let n = 0; n < rounds; n++) {
        const check = confirm ? bus.replicaCheck([queue]) : undefined;
        await bus.send(queue, { n }, { jobId: `cost-${String(confirm)}-${n}` });
        if (confirm) expect(await check?.confirmed()).toBe(true);
      }
      return Number(process.hrtime.bigint() - start) / 1e6 / rounds;
    };
    const plain = await timed(false);
    const confirmed = await timed(true);
    process.stdout.write(`replica-wait cost: ${plain.toFixed(3)} ms per send, ${confirmed.toFixed(3)} ms per send + WAIT (${(confirmed - plain).toFixed(3)} ms more)\n`);
  });

  it('loses sends its master acknowledged while its replica lagged, and never one a replica confirmed', async () => {
    const queue = queues[2] as string;
    const { index, replicaPid } = await masterAndReplica(queue);
    // Two buses, two producer connections: one sends as an outbox did before (acknowledged is
    // delivered), the other confirms each send as the engine does now (WAIT blocks its connection).
    const waiting = openBus(cluster.url);
    await waitFor(
      async () => {
        await waiting.send(queue, {}, { jobId: 'warm-up' });
        return waiting.replicaCheck([queue]) !== undefined;
      },
      { timeoutMs: 30_000, description: 'the second bus to know of the replica' },
    );
    const acked: string[] = [];
    const confirmed: string[] = [];
    let unconfirmed = 0;
    let stop = false;
    // 64 KiB a message: while the replica reads nothing, the stream it owes outgrows the sockets'
    // buffers within a few hundred sends, and the rest waits in the master's memory.
    const bulk = 'x'.repeat(64 * 1024);
    const chain = async (name: string, confirm: boolean): Promise<void> => {
      for (let n = 0; !stop; n++) {
        const id = `${name}-${n}`;
        const via = confirm ? waiting : bus;
        const check = confirm ? waiting.replicaCheck([queue]) : undefined;
        try {
          await via.send(queue, confirm ? { id } : { id, bulk }, { jobId: id });
          if (!confirm) acked.push(id);
          else if (await check?.confirmed()) confirmed.push(id);
          else unconfirmed += 1;
        } catch {
          // A send that met the dead master and timed out: not acknowledged, nothing to check.
        }
      }
    };
    let stopped = false;
    try {
      const chains = [...Array.from({ length: 4 }, (_, i) => chain(`plain${i}`, false)), ...Array.from({ length: 4 }, (_, i) => chain(`wait${i}`, true))];
      const progress = { timeoutMs: 20_000, diagnostics: () => `${acked.length} acknowledged, ${confirmed.length} confirmed, ${unconfirmed} not confirmed` };
      await waitFor(() => acked.length >= 50 && confirmed.length >= 50, { ...progress, description: '50 acknowledged and 50 confirmed sends' });
      // The fault: the replica falls behind (stopped, as a slow or far replica would lag) just
      // before its master is killed, so the replica that takes over lacks what the master acknowledged.
      process.kill(replicaPid, 'SIGSTOP');
      stopped = true;
      const before = acked.length;
      await waitFor(() => acked.length >= before + 300, { ...progress, description: '300 more acknowledged sends while the replica lags' });
      const failing = cluster.killMaster(index);
      await new Promise((resolve) => setTimeout(resolve, 300));
      process.kill(replicaPid, 'SIGCONT');
      stopped = false;
      const failover = await failing;
      stop = true;
      await Promise.all(chains);
      const present = new Set((await bus.queue(queue).getJobs(['waiting', 'paused', 'delayed'], 0, -1)).map((j) => j.id));
      const ackedGone = acked.filter((id) => !present.has(id));
      const confirmedGone = confirmed.filter((id) => !present.has(id));
      process.stdout.write(`replica-wait failover: ${JSON.stringify({ ...failover.replication, acked: acked.length, ackedGone: ackedGone.length, confirmed: confirmed.length, confirmedGone: confirmedGone.length })}\n`);
      expect(confirmedGone).toEqual([]);
      // Not vacuous: the failover did take acknowledged sends with it.
      expect(ackedGone.length).toBeGreaterThan(0);
    } finally {
      stop = true;
      if (stopped) process.kill(replicaPid, 'SIGCONT');
      await waiting.close();
    }
  }, 90_000);
});
