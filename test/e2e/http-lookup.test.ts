import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServiceProcess } from '@sas/stack';
import { remoteSimMapping } from '@sas/http-agent';
import { kindOf, repeatedEffects, resultsNotFromTheirEffect } from '../support/ledger-checks';
import { SystemFixture, type LedgerEffect } from '../support/system-fixture';
import { fastRoleEnv } from '../support/test-workflows';

/**
 * The HTTP agent against a remote that ignores idempotency keys (remote-sim `keyless`, a plain
 * json-server's behaviour), killed with SIGKILL while its calls are in flight: the replies are lost,
 * the steps are recovered and called again. Without a lookup that books orders twice, all
 * Processed and nothing said (issue 23 §5); with one, at most one effect per step.
 */

/** remote-sim's dialect, with or without the lookup that asks remote-sim's ledger for the key. */
function writeMapping(name: string, withLookup: boolean): string {
  const dialect = remoteSimMapping.operations['*']!;
  const lookup = {
    url: '{env.REMOTE_URL}/ledger?service={agent}&idempotencyKey={idempotencyKey}',
    // `GET /ledger` answers { effects: [...] }; each effect holds its key, its result and its effectId,
    // so a found effect is read as a success body is (resultPath `result`, resultFields effectId).
    matchPath: 'effects',
    keyPath: 'idempotencyKey',
  };
  const file = join(mkdtempSync(join(tmpdir(), 'sas-http-lookup-')), `${name}.json`);
  const { lookup: _none, ...plain } = dialect;
  writeFileSync(file, JSON.stringify({ operations: { '*': withLookup ? { ...plain, lookup } : plain } }, null, 2));
  return file;
}

describe('when the HTTP agent of a remote that ignores idempotency keys is killed (kill -9) with calls in flight', () => {
  const withoutLookup = writeMapping('without-lookup', false);
  const withLookup = writeMapping('with-lookup', true);
  let fx: SystemFixture;
  let n = 0;
  const newIds = (count: number, tag: string): string[] => Array.from({ length: count }, () => `${tag}-${++n}`);

  beforeAll(async () => {
    const roleEnv = fastRoleEnv();
    fx = await SystemFixture.start(
      'http-lookup',
      // The payment agents are started by each test, with the mapping it is about.
      { schedulers: 1, supervisors: 1, agents: { inventory: 1, shipping: 1 } },
      {
        ...roleEnv,
        'remote-sim': { REMOTE_SIM_MODE: 'keyless' },
        // Inventory and shipping meet the same keyless remote: they ask it too, so a recovery of
        // theirs (a loaded machine) cannot book twice either.
        agent: { ...roleEnv['agent'], AGENT_MAPPING_FILE: withLookup },
      },
    );
  });
  afterAll(() => fx?.stop());

  /**
   * Runs `ids` through steady-fulfilment (complete-by 6 s) with a payment agent using `mapping`,
   * killed once every order's `held` call (`charge`, or `refund` when shipping refuses the orders)
   * was applied and its answer held at the remote; a replacement with the same mapping finishes the
   * orders, to `state`. Returns the ledger of the orders and the replacement.
   */
  async function killPaymentAgentMid(
    held: 'charge' | 'refund',
    ids: readonly string[],
    mapping: string,
    state: 'Processed' | 'Compensated',
  ): Promise<{ ledger: LedgerEffect[]; replacement: ServiceProcess }> {
    // The calls are applied at once and their answers held, so they are in flight at the kill however
    // slowly this machine gets there.
    await fx.setFaults('payment', { holdOperations: [held] });
    const victim = await fx.system.spawn('agent-payment', { AGENT_MAPPING_FILE: mapping });
    await fx.submit(ids.map((id) => fx.order(id, { workflow: 'steady-fulfilment' })));
    await fx.stack.waitFor(
      async () => {
        const applied = new Set((await fx.ledger()).filter((e) => kindOf(e) === `payment.${held}`).map((e) => e.orderId));
        return ids.every((id) => applied.has(id));
      },
      { timeoutMs: 30_000, description: `every order's ${held} to be applied, its answer held` },
    );
    await victim.kill('SIGKILL');
    // The held answers go to a caller that is gone: the replies are lost.
    await fx.setFaults('payment', {});
    await fx.remote('/admin/release/payment', { method: 'POST' });
    const replacement = await fx.system.spawn('agent-payment', { AGENT_MAPPING_FILE: mapping });
    await fx.waitForStates(ids, [state], 90_000);
    const ledger = (await fx.ledger()).filter((e) => ids.includes(e.orderId));
    await replacement.stop();
    return { ledger, replacement };
  }

  const foundByLookup = (agent: ServiceProcess): number =>
    agent.lines.filter((l) => l.json?.['msg'] === 'the lookup found the effect: its result is taken and no call is made').length;

  it('books orders twice without a lookup, every order Processed: the duplicates the lookup is for', async () => {
    const ids = newIds(10, 'no-lookup');
    const { ledger } = await killPaymentAgentMid('charge', ids, withoutLookup, 'Processed');
    const charges = ledger.filter((e) => kindOf(e) === 'payment.charge');
    const twice = ids.filter((id) => charges.filter((e) => e.orderId === id).length > 1);
    // This is the check the next test passes, failing here: the recovered charges were called again.
    expect(repeatedEffects(charges)).not.toEqual([]);
    expect(twice).toEqual(ids);
  });

  it('books every order once with the lookup: the recovered charge finds its effect, takes its result and makes no call', async () => {
    const ids = newIds(10, 'lookup');
    const { ledger, replacement } = await killPaymentAgentMid('charge', ids, withLookup, 'Processed');
    expect(repeatedEffects(ledger)).toEqual([]);
    for (const id of ids) {
      expect(ledger.filter((e) => e.orderId === id).map(kindOf).sort()).toEqual(['inventory.reserve', 'payment.charge', 'shipping.create']);
    }
    // The step's stored result is the one charge's: its effectId came from the record the lookup found.
    const docs = await fx.processes({ orderId: { $in: ids } });
    expect(resultsNotFromTheirEffect(docs, ledger)).toEqual([]);
    // Not vacuous: the replacement did find charges the killed agent had made.
    expect(foundByLookup(replacement)).toBeGreaterThan(0);
  });

  it('refunds every compensated order once with the lookup: a recovered refund finds its own earlier effect by its own key', async () => {
    const ids = newIds(6, 'undo-lookup');
    await fx.setFaults('shipping', { permanentFailOrders: ids });
    try {
      const { ledger, replacement } = await killPaymentAgentMid('refund', ids, withLookup, 'Compensated');
      expect(repeatedEffects(ledger)).toEqual([]);
      for (const id of ids) {
        expect(ledger.filter((e) => e.orderId === id).map(kindOf).sort()).toEqual(['inventory.release', 'inventory.reserve', 'payment.charge', 'payment.refund']);
      }
      expect(foundByLookup(replacement)).toBeGreaterThan(0);
    } finally {
      await fx.setFaults('shipping', {});
    }
  });
});
