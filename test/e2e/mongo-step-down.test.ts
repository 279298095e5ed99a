import type { OutputLine } from '@sas/stack';
import { repeatedEffects } from '../support/ledger-checks';
import { SystemFixture } from '../support/system-fixture';

const BEFORE = 40;
const DURING = 40;
const STEP_DOWN_SECONDS = 3;

/** What a consumer logs when it puts a message back after a transient MongoDB fault (not counted against it). */
const STORE_FAULT_RETRY = 'MongoDB cannot take the operation now';

function logLines(fx: SystemFixture): OutputLine[] {
  return fx.system.all.flatMap((p) => [...p.lines]);
}

/** Lines where a handler failure was counted against its message although MongoDB said "not primary". */
function stepDownCountedAsHandlerFailure(lines: readonly OutputLine[]): OutputLine[] {
  return lines.filter((l) => {
    const msg = String(l.json?.['msg'] ?? '');
    return msg.startsWith('handler failed') && l.text.includes('not primary');
  });
}

describe('when the MongoDB primary steps down in the middle of a batch', () => {
  let fx: SystemFixture;
  const first = Array.from({ length: BEFORE }, (_, i) => `before-${String(i).padStart(3, '0')}`);
  const second = Array.from({ length: DURING }, (_, i) => `during-${String(i).padStart(3, '0')}`);

  beforeAll(async () => {
    // The embedded server as the one member of replica set rs0: the services connect directly, so
    // after the driver's one retry they see NotWritablePrimary themselves, as on a direct
    // connection to a real member.
    fx = await SystemFixture.start('mongo-step-down', { schedulers: 2, supervisors: 1 }, {}, { mongoReplicaSet: 'rs0' });
  });
  afterAll(() => fx?.stop());

  it('processes every order once, dead-letters nothing and counts no step failure', async () => {
    // Slow payments keep steps in flight while the primary is away.
    await fx.setFaults('payment', { latencyMs: 300 });
    await fx.submit(first.map((id) => fx.order(id)));
    await fx.stack.waitFor(async () => (await fx.processes({ state: 'Processed' })).length >= 5, {
      timeoutMs: 60_000,
      intervalMs: 50,
      description: 'the first orders to be processed',
    });
    expect((await fx.processes({ state: 'Processed' })).length).toBeLessThan(BEFORE);

    const admin = (await fx.stack.mongoClient()).db('admin');
    await admin.command({ replSetStepDown: STEP_DOWN_SECONDS, force: true });
    expect((await admin.command({ hello: 1 }))['isWritablePrimary']).toBe(false);
    // Orders arrive while no write can be taken: their submissions wait for the new primary.
    await fx.submit(second.map((id) => fx.order(id)));

    const ids = [...first, ...second];
    const docs = await fx.waitForStates(ids, ['Processed'], 120_000);
    expect(docs).toHaveLength(BEFORE + DURING);
    for (const d of docs) {
      expect(d.steps.map((s) => s.state)).toEqual(['Completed', 'Completed', 'Completed']);
      expect({ orderId: d.orderId, failureCount: d.failureCount }).toEqual({ orderId: d.orderId, failureCount: 0 });
    }

    const ledger = await fx.ledger();
    for (const id of ids) {
      const effects = ledger.filter((e) => e.orderId === id).map((e) => `${e.service}.${e.operation}`);
      expect({ id, effects: effects.sort() }).toEqual({ id, effects: ['inventory.reserve', 'payment.charge', 'shipping.create'] });
    }
    expect(repeatedEffects(ledger)).toEqual([]);
    expect(await fx.deadLetters()).toEqual([]);

    // The step-down reached the services, and each time it was taken for what it is.
    const lines = logLines(fx);
    expect(lines.filter((l) => String(l.json?.['msg'] ?? '').startsWith(STORE_FAULT_RETRY)).length).toBeGreaterThan(0);
    expect(stepDownCountedAsHandlerFailure(lines).map((l) => `${l.service}: ${l.text.slice(0, 300)}`)).toEqual([]);
  });
});
