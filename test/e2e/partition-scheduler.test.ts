import type { OperatorCommandResult } from '@sas/contracts';
import type { ServiceProcess } from '@sas/stack';
import type { FaultProxy } from '@sas/testkit';
import { OperatorConsole } from '../support/operator-console';
import { SystemFixture } from '../support/system-fixture';
import { fastRoleEnv } from '../support/test-workflows';
import { CUT_MS, ORDERS_BOUND_MS, RECOVERY_BOUND_MS, cutAndHeal, proxied, readyAgain } from './partition-harness';

const DONE = ['Processed', 'Compensated', 'Canceled'];

/**
 * The only scheduler, cut for 10 s from Redis and then from MongoDB (a blackhole: the connections
 * stay open and carry nothing) while orders and an operator command flow. Its peers keep their
 * links. Measured recoveries are printed for docs/liveness.md.
 */
describe('when the only scheduler is cut from Redis or MongoDB for 10 s', () => {
  let fx: SystemFixture;
  let scheduler: ServiceProcess;
  let redisLink: FaultProxy;
  let mongoLink: FaultProxy;
  let operator: OperatorConsole;

  beforeAll(async () => {
    const env = fastRoleEnv();
    fx = await SystemFixture.start('partition-scheduler', { schedulers: 0, supervisors: 1 }, env);
    const redis = await proxied(fx.stack.env['REDIS_URL']!);
    const mongo = await proxied(fx.stack.env['MONGO_URL']!);
    redisLink = redis.proxy;
    mongoLink = mongo.proxy;
    scheduler = await fx.system.spawn('scheduler', { REDIS_URL: redis.url, MONGO_URL: mongo.url, PROBE_PORT: '0' });
    operator = new OperatorConsole({ redisUrl: fx.stack.env['REDIS_URL']!, prefix: fx.stack.queuePrefix });
  });
  afterAll(async () => {
    await fx?.stop();
    await Promise.allSettled([redisLink?.stop(), mongoLink?.stop()]);
  });

  /** Submits orders before and during a cut, cancels one during it, heals, and checks the recovery. */
  async function partitionRun(name: string, link: FaultProxy, stall: RegExp): Promise<void> {
    const before = Array.from({ length: 10 }, (_, i) => `${name}-before-${i}`);
    const during = Array.from({ length: 10 }, (_, i) => `${name}-during-${i}`);
    await fx.submit(before.map((id) => fx.order(id, { workflow: 'steady-fulfilment' })));
    await fx.stack.waitFor(async () => (await fx.processes({ orderId: { $in: before } })).length === before.length, { timeoutMs: 20_000, description: 'the first orders received' });
    let answer: Promise<{ result: OperatorCommandResult; at: number }> | undefined;
    const cut = await cutAndHeal({
      proxy: link,
      service: scheduler,
      readyMessage: 'scheduler ready',
      stall: (l) => l.json?.['level'] === 40 && stall.test(String(l.json?.['msg'])),
      stallDescription: `a warning matching ${stall}`,
      during: async () => {
        await fx.submit(during.map((id) => fx.order(id, { workflow: 'steady-fulfilment' })));
        // Submission is not cut: the order is in the store, and only the scheduler can answer the cancel.
        const target = await fx.stack.waitFor(async () => (await fx.processes({ orderId: during[0] }))[0], { timeoutMs: 5_000, description: 'an order to cancel' });
        answer = operator.cancel(target._id, 'partition test', CUT_MS + RECOVERY_BOUND_MS).then((result) => ({ result, at: Date.now() }));
        answer.catch(() => undefined);
      },
    });
    const readyAt = await readyAgain(scheduler, 'scheduler ready', cut.healAt);
    const answered = await answer!;
    expect(answered.result).toMatchObject({ command: 'cancel', processId: expect.any(String) });
    expect(answered.at - cut.healAt).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
    const docs = await fx.waitForStates([...before, ...during], DONE, Math.max(1, cut.healAt + ORDERS_BOUND_MS - Date.now()));
    const doneAt = Date.now();
    expect(docs.filter((d) => !DONE.includes(d.state))).toEqual([]);
    const recovered = scheduler.lines.some((l) => l.json?.['stall'] === cut.stallLine.json?.['stall'] && typeof l.json?.['stalledMs'] === 'number');
    expect(recovered).toBe(true);
    // Measured for docs/liveness.md (the closing note lists them).
    console.log(
      `${name}: stall logged ${Date.parse(String(cut.stallLine.json?.['time'])) - cut.cutAt} ms into the cut ('${String(cut.stallLine.json?.['msg'])}'); ` +
        `unready ${cut.unreadyAt - cut.cutAt} ms into it; after the heal: ready in ${readyAt - cut.healAt} ms, operator answered in ${answered.at - cut.healAt} ms, all 20 orders done in ${doneAt - cut.healAt} ms`,
    );
  }

  it('cut from Redis: logs the stall and reports unready during the cut, answers the operator and finishes every order after the heal', async () => {
    await partitionRun('redis-cut', redisLink, /has not heard from Redis/);
  });

  it('cut from MongoDB: logs the stall and reports unready during the cut, answers the operator and finishes every order after the heal', async () => {
    await partitionRun('mongo-cut', mongoLink, /store calls have waited for MongoDB/);
  });
});
