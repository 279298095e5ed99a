import type { OperatorCommandResult, ProcessEventEntry } from '@sas/contracts';
import { kindOf, repeatedEffects, undoPairs, undosBeforeForward, unundoneEffects } from '../support/ledger-checks';
import { OperatorConsole } from '../support/operator-console';
import { seededRandom, testSeed } from '../support/seeded-random';
import { SystemFixture } from '../support/system-fixture';
import { fastFulfilment, fastRoleEnv } from '../support/test-workflows';

const ORDERS = 100;
/** Share of the orders an operator cancels. */
const CANCEL_SHARE = 0.6;
/** Latest cancel moment after submission: the orders run through their steps within about this time. */
const LATEST_CANCEL_MS = 3000;

describe('when operators cancel orders at random moments while their remote calls are in flight', () => {
  const seed = testSeed();
  const random = seededRandom(seed);
  const replay = `seed ${seed}; replay with SAS_TEST_SEED=${seed}`;
  let fx: SystemFixture;

  /** Fails with every problem and the seed, so a failing run can be replayed. */
  function expectNone(check: string, problems: readonly string[]): void {
    if (problems.length > 0) throw new Error(`${check} (${replay}):\n  ${problems.join('\n  ')}`);
  }

  beforeAll(async () => {
    fx = await SystemFixture.start('cancel-in-flight', { schedulers: 2, supervisors: 1, agents: { inventory: 1, payment: 2, shipping: 1 } }, fastRoleEnv());
  });
  afterAll(() => fx?.stop());

  it('ends every order, undoes every effect of a canceled order after it took effect, and applies nothing twice', async () => {
    // Slow, flaky payments: a cancel often lands after the charge took effect but before its answer,
    // or while the agent retries; the forward calls can land (no hang).
    await fx.setFaults('payment', { latencyMs: 250, errorRate: 0.15, lostReplyRate: 0.1 });
    await fx.setFaults('inventory', { latencyMs: 30, errorRate: 0.1 });
    await fx.setFaults('shipping', { latencyMs: 30, errorRate: 0.1 });
    const ids = Array.from({ length: ORDERS }, (_, i) => `cif-${i}`);
    const cancelAt = new Map(ids.filter(() => random.next() < CANCEL_SHARE).map((id) => [id, random.int(0, LATEST_CANCEL_MS)]));
    const operator = new OperatorConsole({ redisUrl: fx.stack.env['REDIS_URL']!, prefix: fx.stack.queuePrefix });

    await fx.submit(ids.map((id) => fx.order(id, { workflow: 'fast-fulfilment' })));
    const started = Date.now();
    const answers = await Promise.all(
      [...cancelAt].map(async ([id, atMs]): Promise<[string, OperatorCommandResult]> => {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + atMs - Date.now())));
        const doc = await fx.stack.waitFor(async () => (await fx.processes({ orderId: id }))[0], {
          timeoutMs: 15_000,
          description: `order ${id} to be received (${replay})`,
        });
        return [id, await operator.cancel(doc._id, `random moment ${atMs} ms`)];
      }),
    );

    const docs = await fx.waitForStates(ids, ['Processed', 'Canceled', 'Compensated'], 45_000).catch((e: Error) => {
      throw new Error(`${e.message} (${replay})`);
    });
    const accepted = answers.filter(([, r]) => r.ok).map(([id]) => id);
    const canceled = docs.filter((d) => d.state === 'Canceled').map((d) => d.orderId);
    expect({ replay, canceled: [...canceled].sort() }).toEqual({ replay, canceled: [...accepted].sort() });

    const ledger = (await fx.ledger()).filter((e) => ids.includes(e.orderId));
    const undoOf = undoPairs([fastFulfilment]);
    expectNone('an operation took effect twice for one order', repeatedEffects(ledger));
    expectNone('a canceled order kept an effect', unundoneEffects(ledger, canceled, undoOf));
    expectNone('an undo overtook the forward call it undoes', undosBeforeForward(ledger, undoOf));
    const forwardKinds = [...undoOf.keys()].sort();
    expectNone(
      'a processed order has other effects than one of each forward operation',
      docs
        .filter((d) => d.state === 'Processed')
        .map((d) => ({ id: d.orderId, kinds: ledger.filter((e) => e.orderId === d.orderId).map(kindOf).sort() }))
        .filter(({ kinds }) => kinds.join() !== forwardKinds.join())
        .map(({ id, kinds }) => `order ${id}: ${kinds.join(', ') || 'nothing'}`),
    );

    // Not vacuous: some cancels caught a step in flight, and some of those forward calls did land.
    const canceledIds = docs.filter((d) => d.state === 'Canceled').map((d) => d._id);
    const held = await fx.db
      .collection<ProcessEventEntry>('process_events')
      .find({ processId: { $in: canceledIds } })
      .toArray()
      .then((events) => events.filter((e) => /undo held \d+ ms until the in-flight attempt's complete-by/.test(e.why)));
    const chargedThenCanceled = canceled.filter((id) => ledger.some((e) => e.orderId === id && kindOf(e) === 'payment.charge'));
    expect({ replay, heldSomeInFlight: held.length > 0, someChargesLanded: chargedThenCanceled.length > 0 }).toEqual({
      replay,
      heldSomeInFlight: true,
      someChargesLanded: true,
    });
  });
});
