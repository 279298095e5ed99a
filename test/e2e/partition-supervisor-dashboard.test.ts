import type { ServiceProcess } from '@sas/stack';
import type { FaultProxy } from '@sas/testkit';
import { SystemFixture } from '../support/system-fixture';
import { fastRoleEnv } from '../support/test-workflows';
import { RECOVERY_BOUND_MS, cutAndHeal, proxied, readyAgain } from './partition-harness';

/**
 * The only supervisor cut from MongoDB, and the dashboard cut from Redis, each for 10 s (a
 * blackhole). Neither holds orders, so what must hold is the stall logged and `/readyz` 503 while
 * the cut lasts, ready again within the bound, and the service working after it.
 */
describe('when the supervisor or the dashboard is cut from its MongoDB or Redis for 10 s', () => {
  let fx: SystemFixture;
  let supervisor: ServiceProcess;
  let dashboard: ServiceProcess;
  const links: FaultProxy[] = [];

  beforeAll(async () => {
    fx = await SystemFixture.start('partition-supervisor-dashboard', { schedulers: 1, supervisors: 0 }, fastRoleEnv());
    const supervisorMongo = await proxied(fx.stack.env['MONGO_URL']!);
    const dashboardRedis = await proxied(fx.stack.env['REDIS_URL']!);
    links.push(supervisorMongo.proxy, dashboardRedis.proxy);
    supervisor = await fx.system.spawn('supervisor', { MONGO_URL: supervisorMongo.url, PROBE_PORT: '0' });
    dashboard = await fx.system.spawn('dashboard', { REDIS_URL: dashboardRedis.url, PORT: '0' });
  });
  afterAll(async () => {
    await fx?.stop();
    await Promise.allSettled(links.map((l) => l.stop()));
  });

  it('the supervisor cut from MongoDB logs the stall and reports unready during the cut, and sweeps again after the heal', async () => {
    const cut = await cutAndHeal({
      proxy: links[0]!,
      service: supervisor,
      readyMessage: 'supervisor ready',
      stall: (l) => l.json?.['level'] === 40 && /store calls have waited for MongoDB/.test(String(l.json?.['msg'])),
      stallDescription: 'a MongoDB stall warning',
      during: async () => undefined,
    });
    const readyAt = await readyAgain(supervisor, 'supervisor ready', cut.healAt);
    // A hung payment leaves its step to the supervisor: an order finishing proves the sweep works again.
    await fx.setFaults('payment', { hang: true });
    await fx.submit([fx.order('supervisor-after-heal', { workflow: 'fast-fulfilment' })]);
    await fx.stack.waitFor(async () => (await fx.processes({ orderId: 'supervisor-after-heal', failureCount: { $gte: 1 } })).length === 1, {
      timeoutMs: RECOVERY_BOUND_MS,
      description: 'the supervisor to recover the hung step after the heal',
    });
    await fx.setFaults('payment', { hang: false });
    console.log(`supervisor-mongo-cut: stall logged ${Date.parse(String(cut.stallLine.json?.['time'])) - cut.cutAt} ms into the cut; unready ${cut.unreadyAt - cut.cutAt} ms into it; ready ${readyAt - cut.healAt} ms after the heal`);
  });

  it('the dashboard cut from Redis logs the stall and reports unready during the cut, and is ready after the heal', async () => {
    const cut = await cutAndHeal({
      proxy: links[1]!,
      service: dashboard,
      readyMessage: 'dashboard ready',
      stall: (l) => l.json?.['level'] === 40 && /has not heard from Redis/.test(String(l.json?.['msg'])),
      stallDescription: 'a Redis stall warning',
      during: async () => undefined,
    });
    const readyAt = await readyAgain(dashboard, 'dashboard ready', cut.healAt);
    console.log(`dashboard-redis-cut: stall logged ${Date.parse(String(cut.stallLine.json?.['time'])) - cut.cutAt} ms into the cut; unready ${cut.unreadyAt - cut.cutAt} ms into it; ready ${readyAt - cut.healAt} ms after the heal`);
  });
});
