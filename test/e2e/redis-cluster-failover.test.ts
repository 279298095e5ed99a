import { repeatedEffects } from '../support/ledger-checks';
import { SystemFixture } from '../support/system-fixture';
import { fastRoleEnv } from '../support/test-workflows';

const ORDERS = 40;

describe('when a Redis Cluster master is killed (kill -9) mid-run and its replica takes over', () => {
  let fx: SystemFixture;

  beforeAll(async () => {
    fx = await SystemFixture.start('redis-cluster-failover', { schedulers: 2, supervisors: 1 }, fastRoleEnv(), { redisTopology: 'cluster' });
  });
  afterAll(() => fx?.stop());

  it('loses no order and applies no step twice, with no dead letter and every service still running', async () => {
    // Slow payments keep orders in flight across the failover, on every queue.
    await fx.setFaults('payment', { latencyMs: 200 });
    const ids = Array.from({ length: ORDERS }, (_, i) => `failover-${String(i).padStart(2, '0')}`);
    const firstHalf = ids.slice(0, ORDERS / 2);
    await fx.submit(firstHalf.map((id) => fx.order(id, { workflow: 'fast-fulfilment' })));
    await fx.stack.waitFor(async () => (await fx.processes({ orderId: { $in: firstHalf }, state: 'Processing' })).length > 0, {
      timeoutMs: 30_000,
      description: 'orders in flight',
    });

    const cluster = fx.stack.redisCluster!;
    // Every master serves some queues (one hash tag each), so whichever dies, live queues go with it.
    const { killedPort, promotedPort } = await cluster.killMaster(0);
    expect(await cluster.masterPorts()).toEqual(expect.arrayContaining([promotedPort]));
    expect(await cluster.masterPorts()).not.toContain(killedPort);

    // Orders submitted after the failover go through the promoted replica as well.
    await fx.submit(ids.slice(ORDERS / 2).map((id) => fx.order(id, { workflow: 'fast-fulfilment' })));
    const docs = await fx.waitForStates(ids, ['Processed'], 120_000);
    expect(docs).toHaveLength(ORDERS);

    const ledger = (await fx.ledger()).filter((e) => ids.includes(e.orderId));
    expect(repeatedEffects(ledger)).toEqual([]);
    expect(ledger).toHaveLength(ORDERS * 3);
    expect(await fx.deadLetters()).toEqual([]);
    expect(fx.system.all.every((p) => p.running)).toBe(true);
    for (const id of ids) expect(fx.statusesOf(id).at(-1)).toBe('Processed');
  });
});
