import { join } from 'node:path';
import { QueueNames } from '@sas/contracts';
import { ServiceProcess, findWorkspaceRoot } from '@sas/stack';
import { scrapeMetrics } from '@sas/testkit';
import { repeatedEffects } from '../support/ledger-checks';
import { SystemFixture } from '../support/system-fixture';
import { fastRoleEnv } from '../support/test-workflows';

/**
 * `sas up`'s default layout: its core process hosts submission and a scheduler side by side, and
 * the submission hands each new process to that scheduler, which claims it from the inserted copy
 * instead of a wake-up job through Redis and a read (decision 128); one more process serves the
 * three agents (decision 131). With that scheduler the only one, every order must still finish
 * once, with its Received and Processed events, and none may wait for the poll.
 */
describe('the shared core handing new processes from its submission to its scheduler', () => {
  let fx: SystemFixture;
  let core: ServiceProcess;
  let schedulerProbe: number;

  beforeAll(async () => {
    const roleEnv = fastRoleEnv();
    // No scheduler, supervisor or submission of their own: the core's are the only ones. The three
    // agents are one process, as sas up runs them (decision 131).
    fx = await SystemFixture.start('core-hand-over', { schedulers: 0, supervisors: 0, submission: 0, agents: { 'inventory+payment+shipping': 1 } }, roleEnv);
    core = new ServiceProcess({
      name: 'core-1',
      script: join(findWorkspaceRoot(), 'tools', 'cli', 'dist', 'up', 'core-main.js'),
      // A poll far longer than the test: a process the hand-over missed would visibly wait for it.
      env: { ...fx.stack.env, ...roleEnv['submission'], ...roleEnv['scheduler'], ...roleEnv['supervisor'], INSTANCE_ID: 'core-1', PROBE_PORT: '0', POLL_INTERVAL_MS: '600000' },
      logFile: join(fx.stack.logDir, 'core-1.log'),
    });
    await core.start();
    const ready = await core.waitForLine((l) => l.json?.['msg'] === 'scheduler ready', 30_000, "core-1's scheduler to log its ready line");
    schedulerProbe = Number(ready.json?.['probePort']);
    await core.waitForLine((l) => l.json?.['msg'] === 'core ready', 30_000, 'core-1 to log core ready');
  });
  afterAll(async () => {
    await core?.stop();
    await fx?.stop();
  });

  it('claims every new process without a wake-up job, and each order finishes once with Received then Processed', async () => {
    const ids = Array.from({ length: 24 }, (_, i) => `hand-over-${i}`);
    await fx.submit(ids.map((id) => fx.order(id, { statusEvents: 'final' })));
    await fx.waitForStates(ids, ['Processed'], 30_000);

    const metrics = await scrapeMetrics(`http://127.0.0.1:${schedulerProbe}/metrics`);
    expect(metrics.total('sas_scheduler_handed_over_claims_total')).toBe(ids.length);
    expect(metrics.total('sas_scheduler_claims_total')).toBe(ids.length);
    for (const id of ids) expect(fx.statusesOf(id)).toEqual(['Received', 'Processed']);
    const effects = (await fx.ledger()).filter((e) => ids.includes(e.orderId));
    expect(repeatedEffects(effects)).toEqual([]);
    // The one agents process served each of the three remote services, each step once per order.
    expect(new Set(effects.map((e) => `${e.service}.${e.operation}`))).toEqual(new Set(['inventory.reserve', 'payment.charge', 'shipping.create']));
    expect(effects).toHaveLength(3 * ids.length);
    expect(fx.system.all.map((p) => p.name).filter((n) => n.startsWith('agent-'))).toEqual(['agent-inventory+payment+shipping-1']);
    // Not one wake-up job was ever added (BullMQ numbers a queue's jobs with this counter).
    const wakeups = fx.queue(QueueNames.schedulerReady);
    try {
      expect(Number((await (await wakeups.client).get(wakeups.keys['id'] ?? '')) ?? 0)).toBe(0);
    } finally {
      await wakeups.close();
    }
  });
});
