import type { OperatorCommandResult, ProcessEventEntry } from '@sas/contracts';
import { REDIS_TOPOLOGIES } from '@sas/testkit';
import {
  forwardCallsAfterUndo,
  kindOf,
  repeatedDispatches,
  repeatedEffects,
  undoPairs,
  undosBeforeForward,
  undosBeforeForwardAnswered,
  unundoneEffects,
  type LedgerArrival,
} from '../support/ledger-checks';
import { OperatorConsole } from '../support/operator-console';
import { plainArrivals, withPlainRemote } from '../support/remote-arrivals';
import { seededRandom, testSeed } from '../support/seeded-random';
import { SystemFixture } from '../support/system-fixture';
import { fastFulfilment, fastRoleEnv } from '../support/test-workflows';

const ORDERS = 100;
/** Share of the orders an operator cancels. */
const CANCEL_SHARE = 0.6;
/** Latest cancel moment after submission: the orders run through their steps within about this time. */
const LATEST_CANCEL_MS = 3000;
/** Orders whose charge is held at the remote while they are canceled. */
const HELD_ORDERS = 3;

/** Fails with every problem (and what to replay it with), naming the check. */
function expectNone(check: string, problems: readonly string[], replay = ''): void {
  if (problems.length > 0) throw new Error(`${check}${replay ? ` (${replay})` : ''}:\n  ${problems.join('\n  ')}`);
}

/** The ordering and dispatch checks over arrivals, and the effect checks over the ledger. */
function expectGuarantees(arrivals: readonly LedgerArrival[], ledger: Parameters<typeof repeatedEffects>[0], canceled: readonly string[], replay = ''): void {
  const undoOf = undoPairs([fastFulfilment]); // every test workflow has the same steps
  expectNone('an undo arrived while the forward call it undoes was unanswered', undosBeforeForwardAnswered(arrivals), replay);
  expectNone('a forward call arrived after the undo that undoes it', forwardCallsAfterUndo(arrivals), replay);
  expectNone('a step and attempt was dispatched twice', repeatedDispatches(arrivals), replay);
  expectNone('an operation took effect twice for one order', repeatedEffects(ledger), replay);
  expectNone('a canceled order kept an effect', unundoneEffects(ledger, canceled, undoOf), replay);
  expectNone('an undo took effect before the forward call it undoes', undosBeforeForward(ledger, undoOf), replay);
}

// remote-sim runs `plain` here: no tombstone refuses a forward call that comes after its undo, so
// only the engine's hold keeps the undo behind its forward call.
describe.each(REDIS_TOPOLOGIES)('when operators cancel orders while their remote calls are in flight (%s Redis)', (redisTopology) => {
  let fx: SystemFixture;
  let operator: OperatorConsole;

  beforeAll(async () => {
    fx = await SystemFixture.start(
      'cancel-in-flight',
      { schedulers: 2, supervisors: 1, agents: { inventory: 1, payment: 2, shipping: 1 } },
      withPlainRemote(fastRoleEnv()),
      { redisTopology },
    );
    operator = new OperatorConsole({ redisUrl: fx.stack.env['REDIS_URL']!, prefix: fx.stack.queuePrefix });
  });
  afterAll(() => fx?.stop());
  afterEach(async () => {
    await fx.remote('/admin/faults', { method: 'DELETE' });
  });

  it('holds the undo of a charge the remote has not answered until its caller gave up on it, then refunds it', async () => {
    // The remote applies each charge at once but holds its answer: when the cancel is committed the
    // charge is in flight with its outcome unknown, so the undo must wait for it. The answer is
    // released only once the undo arrived or the agent gave up on the charge at its complete-by
    // (steady-fulfilment's 6 s, which leaves a loaded machine time to commit the cancel meanwhile):
    // releasing it earlier would let the charge be answered before an undo sent at once.
    await fx.setFaults('payment', { holdOperations: ['charge'] });
    const ids = Array.from({ length: HELD_ORDERS }, (_, i) => `held-${redisTopology}-${i}`);
    await fx.submit(ids.map((id) => fx.order(id, { workflow: 'steady-fulfilment' })));

    const runs = await Promise.all(
      ids.map(async (id) => {
        const charge = await fx.stack.waitFor(async () => (await plainArrivals(fx, [id])).find((a) => kindOf(a) === 'payment.charge'), {
          timeoutMs: 30_000,
          description: `order ${id}'s charge to arrive and be held`,
        });
        const [doc] = await fx.processes({ orderId: id });
        const answer = await operator.cancel(doc!._id, 'while its charge is held');
        const committedAt = Date.now();
        await fx.stack.waitFor(
          async () => {
            const arrivals = await plainArrivals(fx, [id]);
            const held = arrivals.find((a) => a.arrivalId === charge.arrivalId);
            const undone = arrivals.some((a) => a.mode === 'undo' && a.compensates === charge.idempotencyKey);
            return undone || held?.abandonedAt !== undefined || held?.answeredAt !== undefined;
          },
          { timeoutMs: 30_000, description: `order ${id}'s undo to arrive or its charge's caller to give up` },
        );
        await fx.remote('/admin/release/payment', { method: 'POST' });
        return { id, answer, committedAt, charge };
      }),
    );
    expect(runs.map((r) => [r.id, r.answer.ok])).toEqual(ids.map((id) => [id, true]));
    await fx.waitForStates(ids, ['Canceled'], 60_000);

    const arrivals = await plainArrivals(fx, ids);
    const ledger = (await fx.ledger()).filter((e) => ids.includes(e.orderId));
    expectGuarantees(arrivals, ledger, ids);
    // Not vacuous: every charge took effect and was still unanswered when its cancel was committed.
    const ended = runs.map(({ id, committedAt, charge }) => {
      const held = arrivals.find((a) => a.arrivalId === charge.arrivalId);
      return { id, applied: held?.applied, stillHeldAtCommit: (held?.abandonedAt ?? held?.answeredAt ?? Infinity) > committedAt };
    });
    expect(ended).toEqual(ids.map((id) => ({ id, applied: true, stillHeldAtCommit: true })));
    expect(ledger.filter((e) => kindOf(e) === 'payment.refund').map((e) => e.orderId).sort()).toEqual([...ids].sort());
  }, 120_000);

  // The random-moment run covers the other interleavings (a cancel during retries, after a lost
  // reply, before a dispatch); one topology is enough for it.
  if (redisTopology === 'single') {
    it('ends every order, undoes every effect of an order canceled at a random moment, and dispatches and applies nothing twice', async () => {
      const seed = testSeed();
      const random = seededRandom(seed);
      const replay = `seed ${seed}; replay with SAS_TEST_SEED=${seed}`;
      // Slow, flaky payments: a cancel often lands after the charge took effect but before its answer,
      // or while the agent retries; the forward calls can land (no hang).
      await fx.setFaults('payment', { latencyMs: 250, errorRate: 0.15, lostReplyRate: 0.1 });
      await fx.setFaults('inventory', { latencyMs: 30, errorRate: 0.1 });
      await fx.setFaults('shipping', { latencyMs: 30, errorRate: 0.1 });
      const ids = Array.from({ length: ORDERS }, (_, i) => `cif-${i}`);
      const cancelAt = new Map(ids.filter(() => random.next() < CANCEL_SHARE).map((id) => [id, random.int(0, LATEST_CANCEL_MS)]));

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
      expectGuarantees(await plainArrivals(fx, ids), ledger, canceled, replay);
      const forwardKinds = [...undoPairs([fastFulfilment]).keys()].sort();
      expectNone(
        'a processed order has other effects than one of each forward operation',
        docs
          .filter((d) => d.state === 'Processed')
          .map((d) => ({ id: d.orderId, kinds: ledger.filter((e) => e.orderId === d.orderId).map(kindOf).sort() }))
          .filter(({ kinds }) => kinds.join() !== forwardKinds.join())
          .map(({ id, kinds }) => `order ${id}: ${kinds.join(', ') || 'nothing'}`),
        replay,
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
    }, 120_000);
  }
});
