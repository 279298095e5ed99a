import { QueueNames, queueKeyPrefix } from '@sas/contracts';
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

  it('loses no order, no status event and applies no step twice, with no dead letter and every service still running', async () => {
    // Payments answer after 200 ms, so calls are in flight, and held under their job locks, on the
    // master that dies. The workflow is the real one: its complete-by (5 s a step) outlasts a
    // failover; the test workflows' 1.5 s would turn the outage into failed steps.
    await fx.setFaults('payment', { latencyMs: 200 });
    const ids = Array.from({ length: ORDERS }, (_, i) => `failover-${String(i).padStart(2, '0')}`);
    const firstHalf = ids.slice(0, ORDERS / 2);
    await fx.submit(firstHalf.map((id) => fx.order(id)));
    await fx.stack.waitFor(async () => (await fx.processes({ orderId: { $in: firstHalf }, 'steps.1.state': 'Running' })).length > 0, {
      timeoutMs: 30_000,
      description: 'payments in flight',
    });

    const cluster = fx.stack.redisCluster!;
    const payments = QueueNames.agentRequests('payment');
    const victim = await cluster.masterIndexServing(`${queueKeyPrefix(fx.stack.queuePrefix, payments)}:${payments}:wait`);
    const { killedPort, promotedPort } = await cluster.killMaster(victim);
    expect(await cluster.masterPorts()).toContain(promotedPort);
    expect(await cluster.masterPorts()).not.toContain(killedPort);

    // Orders submitted after the failover go through the promoted replica as well.
    await fx.submit(ids.slice(ORDERS / 2).map((id) => fx.order(id)));
    const docs = await fx.waitForStates(ids, ['Processed'], 120_000);
    expect(docs).toHaveLength(ORDERS);

    const ledger = (await fx.ledger()).filter((e) => ids.includes(e.orderId));
    expect(repeatedEffects(ledger)).toEqual([]);
    expect(ledger).toHaveLength(ORDERS * 3);
    expect(await fx.deadLetters()).toEqual([]);
    expect(fx.system.all.every((p) => p.running)).toBe(true);
    // Status events owed during the outage stay in the outbox and are delivered once Redis answers.
    await fx.stack.waitFor(() => ids.every((id) => fx.statusesOf(id).includes('Processed')), {
      timeoutMs: 30_000,
      description: 'a Processed status for every order',
    });
    for (const id of ids) {
      expect([...new Set(fx.statusesOf(id))]).toEqual(['Received', 'Processing', 'StepCompleted', 'Processed']);
      expect(fx.statusesOf(id).filter((s) => s === 'StepCompleted')).toHaveLength(3);
    }
  }, 240_000);
});
