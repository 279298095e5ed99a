import { repeatedEffects } from '../support/ledger-checks';
import { SystemFixture } from '../support/system-fixture';
import { fastRoleEnv } from '../support/test-workflows';

describe('when Redis is killed (kill -9) and restarted mid-flight', () => {
  let fx: SystemFixture;

  beforeAll(async () => {
    fx = await SystemFixture.start('redis-restart', { schedulers: 2, supervisors: 1 }, fastRoleEnv(), { redisAppendOnly: true });
  });
  afterAll(() => fx?.stop());

  it('every service reconnects and every received order still completes, each step applied once', async () => {
    await fx.setFaults('payment', { latencyMs: 300 });
    const ids = Array.from({ length: 20 }, (_, i) => `redis-chaos-${i}`);
    await fx.submit(ids.map((id) => fx.order(id, { workflow: 'fast-fulfilment' })));
    // Every order is in the store (the truth) before the crash; queue messages may be lost with Redis.
    await fx.stack.waitFor(async () => (await fx.processes({ orderId: { $in: ids } })).length === ids.length, {
      timeoutMs: 20_000,
      description: 'all 20 orders received',
    });
    await fx.stack.waitFor(async () => (await fx.processes({ orderId: { $in: ids }, state: 'Processing' })).length > 0, {
      timeoutMs: 20_000,
      description: 'orders in flight',
    });
    const pid = fx.stack.redis.pid;
    await fx.stack.redis.kill('SIGKILL');
    await fx.stack.redis.restart();
    expect(fx.stack.redis.pid).not.toBe(pid);

    await fx.waitForStates(ids, ['Processed'], 90_000);
    const ledger = (await fx.ledger()).filter((e) => ids.includes(e.orderId));
    expect(repeatedEffects(ledger)).toEqual([]);
    expect(ledger).toHaveLength(ids.length * 3);
    expect(fx.system.all.every((p) => p.running)).toBe(true);
    for (const scheduler of fx.system.byRole('scheduler')) {
      expect(scheduler.lines.some((l) => l.json?.['msg'] === 'redis connection lost; reconnecting')).toBe(true);
    }
  });
});
