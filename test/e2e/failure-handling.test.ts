import { hostname, userInfo } from 'node:os';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { QueueNames, SCHEMA_VERSION, type ProcessEventEntry } from '@sas/contracts';
import { findWorkspaceRoot } from '@sas/stack';
import { repeatedEffects } from '../support/ledger-checks';
import { SystemFixture } from '../support/system-fixture';
import { TEST_COMPLETE_BY_MS, fastRoleEnv } from '../support/test-workflows';

/** Who the CLI's direct-path writes name (issue 22): the OS user and host, not a typed --by. */
const CLI_PRINCIPAL = `cli:${userInfo().username}@${hostname()}`;

/** Runs the `sas` CLI against the fixture's stack, as an operator would. */
function sas(fx: SystemFixture, args: string[]): { code: number; out: string } {
  const r = spawnSync(process.execPath, [join(findWorkspaceRoot(), 'tools/cli/dist/main.js'), ...args], {
    env: { ...process.env, ...fx.stack.env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status ?? 1, out: `${r.stdout}${r.stderr}` };
}

describe('how failures are handled (real processes, private Redis)', () => {
  let fx: SystemFixture;
  let n = 0;
  const newIds = (count: number, tag: string): string[] => Array.from({ length: count }, () => `${tag}-${++n}`);
  const history = (processId: string): Promise<ProcessEventEntry[]> =>
    fx.db.collection<ProcessEventEntry>('process_events').find({ processId }).sort({ at: 1 }).toArray();

  beforeAll(async () => {
    fx = await SystemFixture.start('failure-handling', { schedulers: 2, supervisors: 2 }, fastRoleEnv());
  });
  afterAll(() => fx?.stop());
  afterEach(async () => {
    await fx.remote('/admin/faults', { method: 'DELETE' });
  });

  describe('when every remote fails 30% of calls transiently and loses 10% of replies', () => {
    it('processes every order with exactly one effect per step', async () => {
      for (const s of ['inventory', 'payment', 'shipping']) await fx.setFaults(s, { errorRate: 0.3, lostReplyRate: 0.1 });
      const ids = newIds(30, 'flaky');
      await fx.submit(ids.map((id) => fx.order(id, { workflow: 'fast-fulfilment' })));
      await fx.waitForStates(ids, ['Processed'], 120_000);
      const ledger = (await fx.ledger()).filter((e) => ids.includes(e.orderId));
      // First the check that names what happened twice, then the count.
      expect(repeatedEffects(ledger)).toEqual([]);
      expect(ledger).toHaveLength(ids.length * 3);
      const stats = (await fx.remote('/stats')) as { total: number };
      expect(stats.total).toBeGreaterThan(ids.length * 3); // faults really happened and were retried
    });
  });

  describe('when a remote hangs past complete-by', () => {
    it('recovers the step, sends no reply for the expired attempt, and completes the order', async () => {
      await fx.setFaults('payment', { hang: true });
      const [id] = newIds(1, 'hang') as [string];
      await fx.submit([fx.order(id, { workflow: 'fast-fulfilment' })]);
      const recovered = await fx.stack.waitFor(
        async () => {
          const [doc] = await fx.processes({ orderId: id });
          return doc && doc.failureCount >= 1 ? doc : null;
        },
        { timeoutMs: 15_000, description: 'the supervisor to recover the hung payment step' },
      );
      await fx.remote('/admin/faults/payment', { method: 'DELETE' });
      await fx.waitForStates([id], ['Processed'], 30_000);
      const events = await history(recovered._id);
      expect(events.some((e) => /complete-by passed/.test(e.why) && /supervisor/.test(e.who))).toBe(true);
      const agents = fx.system.byRole('agent-payment');
      expect(agents.some((a) => a.lines.some((l) => l.json?.['processId'] === recovered._id && /complete-by passed/.test(String(l.json?.['msg']))))).toBe(true);
      // The expired attempt never answered: no scheduler saw (and ignored) a reply for this process.
      const schedulers = fx.system.byRole('scheduler');
      expect(schedulers.some((s) => s.lines.some((l) => l.json?.['processId'] === recovered._id && l.json?.['msg'] === 'reply ignored'))).toBe(false);
    });
  });

  describe('when shipping refuses an order permanently', () => {
    it('releases the inventory and refunds the payment, ending Compensated', async () => {
      const [id] = newIds(1, 'refused') as [string];
      await fx.setFaults('shipping', { permanentFailOrders: [id] });
      await fx.submit([fx.order(id, { workflow: 'fast-fulfilment' })]);
      const [doc] = await fx.waitForStates([id], ['Compensated'], 30_000);
      expect(doc?.steps.map((s) => s.state)).toEqual(['Compensated', 'Compensated', 'Failed']);
      const ops = (await fx.ledger()).filter((e) => e.orderId === id).map((e) => `${e.service}.${e.operation}`);
      expect(ops).toEqual(['inventory.reserve', 'payment.charge', 'payment.refund', 'inventory.release']);
      await fx.stack.waitFor(() => fx.statusesOf(id).includes('Compensated'), { timeoutMs: 10_000, description: 'Compensated status' });
      expect(fx.statusesOf(id)).toEqual(['Received', 'Processing', 'StepCompleted', 'StepCompleted', 'Failed', 'Compensated']);
    });
  });

  describe('when the failure threshold is reached with policy error', () => {
    it('marks the process Error, alerts an operator, and completes after resubmission', async () => {
      const [id] = newIds(1, 'manual') as [string];
      await fx.setFaults('inventory', { hang: true });
      await fx.submit([fx.order(id, { workflow: 'fast-manual' })]);
      const [doc] = await fx.waitForStates([id], ['Error'], 30_000);
      const alert = await fx.stack.waitFor(() => fx.alerts.messages.find((a) => a['orderId'] === id), {
        timeoutMs: 10_000,
        description: 'a ThresholdReached alert',
      });
      expect(alert).toMatchObject({ kind: 'ThresholdReached', step: 'reserve-inventory', failureCount: 2 });
      expect(String(alert['reason'])).toMatch(/resubmit or cancel/);

      await fx.remote('/admin/faults/inventory', { method: 'DELETE' });
      const refused = sas(fx, ['cancel', 'no-such-process']);
      expect(refused.code).toBe(1);
      expect(refused.out).toMatch(/refused: no process no-such-process/);
      const resubmitted = sas(fx, ['resubmit', doc!._id, '--reason', 'inventory is back']);
      expect(resubmitted.out).toContain(`done: resubmitted by ${CLI_PRINCIPAL} from reserve-inventory: inventory is back`);
      expect(resubmitted.code).toBe(0);
      await fx.waitForStates([id], ['Processed'], 30_000);
      expect((await fx.ledger()).filter((e) => e.orderId === id)).toHaveLength(3);
    });
  });

  describe('when an operator cancels an order whose step is in flight', () => {
    it('fences the in-flight step off, undoes it and the completed ones, and ends Canceled', async () => {
      const [id] = newIds(1, 'cancel') as [string];
      await fx.setFaults('payment', { hang: true });
      await fx.submit([fx.order(id, { workflow: 'fast-fulfilment' })]);
      const held = await fx.stack.waitFor(
        async () => (await fx.processes({ orderId: id, 'steps.1.state': 'Running' }))[0],
        { timeoutMs: 15_000, description: 'the payment step in flight' },
      );
      const canceled = sas(fx, ['cancel', held._id]);
      expect(canceled.out).toContain(`done: canceled by ${CLI_PRINCIPAL}`);
      await fx.remote('/admin/faults/payment', { method: 'DELETE' });
      const [doc] = await fx.waitForStates([id], ['Canceled'], 30_000);
      expect(doc?.steps.map((s) => s.state)).toEqual(['Compensated', 'Compensated', 'NotStarted']);
      const ops = (await fx.ledger()).filter((e) => e.orderId === id).map((e) => `${e.service}.${e.operation}`);
      expect(ops).toEqual(['inventory.reserve', 'payment.refund', 'inventory.release']);
      await fx.stack.waitFor(() => fx.statusesOf(id).includes('Canceled'), { timeoutMs: 10_000, description: 'Canceled status' });
      const again = sas(fx, ['cancel', held._id]);
      expect(again.code).toBe(1);
      expect(again.out).toMatch(/refused: process is Canceled; only unfinished processes can be canceled/);
    });
  });

  describe('when a reply arrives for an attempt that is no longer current', () => {
    it('changes nothing and logs it', async () => {
      const [id] = newIds(1, 'stale') as [string];
      await fx.submit([fx.order(id, { workflow: 'fast-fulfilment' })]);
      await fx.waitForStates([id], ['Processed'], 30_000);
      // The snapshot is taken once the finished process's outbox is delivered too: until then its
      // scheduler still clears it, a change that has nothing to do with the stale reply below.
      const before = await fx.stack.waitFor(
        async () => {
          const [doc] = await fx.processes({ orderId: id });
          return doc && doc.outboxSince === null ? doc : null;
        },
        { timeoutMs: 30_000, description: 'the finished process\'s outbox to be delivered' },
      );
      const replies = fx.queue(QueueNames.schedulerReplies);
      await replies.add('reply', {
        schemaVersion: SCHEMA_VERSION,
        processId: before!._id,
        step: 'charge-payment',
        stepIndex: 1,
        mode: 'forward',
        attempt: 2,
        agent: 'payment',
        agentInstance: 'late-agent',
        at: Date.now(),
        outcome: 'error',
        errorKind: 'permanent',
        message: 'late refusal',
      });
      await replies.close();
      await fx.stack.waitFor(
        () => fx.system.byRole('scheduler').some((s) => s.lines.some((l) => l.json?.['processId'] === before!._id && l.json?.['msg'] === 'reply ignored')),
        { timeoutMs: 10_000, description: 'a scheduler to ignore the stale reply' },
      );
      const [after] = await fx.processes({ orderId: id });
      expect(after).toEqual(before);
    });
  });

  describe('when a remote service is down for three times the complete-by time', () => {
    it('parks the steps behind an open breaker, without a retry storm or burned failures, and completes after', async () => {
      const ids = newIds(10, 'outage');
      await fx.remote('/ledger', { method: 'DELETE' });
      await fx.setFaults('payment', { outageMs: 3 * TEST_COMPLETE_BY_MS });
      await fx.submit(ids.map((id) => fx.order(id, { workflow: 'fast-fulfilment' })));
      const parked = await fx.stack.waitFor(
        async () => {
          const docs = await fx.processes({ orderId: { $in: ids } });
          return docs.some((d) => /circuit open/.test(d.reason ?? '')) ? docs : null;
        },
        { timeoutMs: 15_000, description: 'a payment step parked behind an open breaker' },
      );
      expect(parked.length).toBe(ids.length);
      const docs = await fx.waitForStates(ids, ['Processed'], 60_000);
      const stats = (await fx.remote('/stats')) as { services: Record<string, { outcomes: Record<string, number> }> };
      const outageCalls = stats.services['payment']?.outcomes['outage'] ?? 0;
      // Without the breaker: 10 orders x 4 tries x (outage / complete-by = 3 rounds) = 120 calls.
      expect(outageCalls).toBeGreaterThan(0);
      expect(outageCalls).toBeLessThanOrEqual(30);
      for (const d of docs) {
        const events = await history(d._id);
        expect(events.filter((e) => /threshold/.test(e.why))).toEqual([]);
      }
      const breakers = await fx.db.collection('agent_breakers').find({ agent: 'payment' }).toArray();
      expect(breakers.length).toBeGreaterThan(0);
    });
  });
});
