import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProcessDocument } from '@sas/contracts';
import type { ServiceProcess } from '@sas/stack';
import { remoteSimMapping } from '@sas/http-agent';
import { kindOf } from '../support/ledger-checks';
import { OperatorConsole } from '../support/operator-console';
import { SystemFixture, type LedgerEffect } from '../support/system-fixture';
import { fastRoleEnv } from '../support/test-workflows';

/**
 * The json-server recipe of docs/http-mapping.md, through mappings only, against remote-sim
 * `keyless` (no dedup of its own): each forward call makes a record holding its key, its lookup
 * finds it by that key, and its undo deletes it by id (`DELETE /ledger/:effectId`, a record
 * store's delete). The undo's forwardLookup finds the record when the forward outcome is unknown
 * (a cancel while the call was in flight, an agent killed mid-call). Every Canceled order must
 * leave no record behind, and every Processed order exactly one per step.
 */

const FORWARD = ['inventory.reserve', 'payment.charge', 'shipping.create'];

/** The mapping; without `forwardLookup`, an undo of an unknown outcome has no id to delete by. */
function writeMapping(): string {
  const { lookup: _none, ...dialect } = remoteSimMapping.operations['*']!;
  const lookup = { url: '{env.REMOTE_URL}/ledger?service={agent}&idempotencyKey={idempotencyKey}', matchPath: 'effects', keyPath: 'idempotencyKey' };
  const undo = {
    method: 'DELETE',
    url: '{env.REMOTE_URL}/ledger/{compensates.result.effectId}',
    body: null,
    // Deleted already (a retry of an undo whose answer was lost): the effect is gone, as asked.
    alreadyDoneStatuses: [404],
    // A found record is the whole effect, effectId included.
    forwardLookup: { url: '{env.REMOTE_URL}/ledger?service={agent}&idempotencyKey={compensates.idempotencyKey}', matchPath: 'effects', keyPath: 'idempotencyKey' },
  };
  const file = join(mkdtempSync(join(tmpdir(), 'sas-undo-lookup-')), 'mapping.json');
  writeFileSync(file, JSON.stringify({ operations: { '*': { ...dialect, lookup }, refund: undo, release: undo, cancel: undo } }, null, 2));
  return file;
}

/** One sentence per order whose records are not what its state requires. */
function recordProblems(ledger: readonly LedgerEffect[], canceled: readonly string[], processed: readonly string[]): string[] {
  const kinds = (id: string): string[] => ledger.filter((e) => e.orderId === id).map(kindOf).sort();
  return [
    ...canceled.filter((id) => kinds(id).length > 0).map((id) => `canceled ${id} left ${kinds(id).join(', ')} behind`),
    ...processed.filter((id) => kinds(id).join() !== FORWARD.join()).map((id) => `processed ${id} has ${kinds(id).join(', ') || 'no record'}, not one per step`),
  ];
}

/** [orderId, state] of each order, in the order of `ids`. */
function stateOf(docs: readonly ProcessDocument[], ids: readonly string[]): [string, string][] {
  return ids.map((id) => [id, docs.find((d) => d.orderId === id)?.state ?? 'missing']);
}

describe('when the undo of a call to a remote that ignores idempotency keys finds the forward call by its key', () => {
  const mapping = writeMapping();
  let fx: SystemFixture;
  let operator: OperatorConsole;
  let n = 0;
  const newIds = (count: number, tag: string): string[] => Array.from({ length: count }, () => `${tag}-${++n}`);

  beforeAll(async () => {
    const roleEnv = fastRoleEnv();
    fx = await SystemFixture.start(
      'http-undo-lookup',
      // The payment agents are started by the test that kills one.
      { schedulers: 1, supervisors: 1, agents: { inventory: 1, shipping: 1 } },
      { ...roleEnv, 'remote-sim': { REMOTE_SIM_MODE: 'keyless' }, agent: { ...roleEnv['agent'], AGENT_MAPPING_FILE: mapping } },
    );
    operator = new OperatorConsole({ redisUrl: fx.stack.env['REDIS_URL']!, prefix: fx.stack.queuePrefix });
  });
  afterAll(() => fx?.stop());
  afterEach(async () => {
    await fx.remote('/admin/faults', { method: 'DELETE' });
  });

  const foundForward = (agent: ServiceProcess): number =>
    agent.lines.filter((l) => l.json?.['msg'] === 'the forwardLookup found what the forward call did: the undo reads it as compensates.result').length;

  async function waitForApplied(kind: string, ids: readonly string[]): Promise<void> {
    await fx.stack.waitFor(
      async () => {
        const applied = new Set((await fx.ledger()).filter((e) => kindOf(e) === kind).map((e) => e.orderId));
        return ids.every((id) => applied.has(id));
      },
      { timeoutMs: 30_000, description: `every order's ${kind} to be applied, its answer held` },
    );
  }

  async function cancelAll(ids: readonly string[], reason: string): Promise<void> {
    const docs = await fx.processes({ orderId: { $in: [...ids] } });
    const answers = await Promise.all(docs.map((d) => operator.cancel(d._id, reason)));
    expect(answers.map((a) => a.ok)).toEqual(docs.map(() => true));
  }

  it('leaves no record of a canceled order and one per step of a processed one, across a kill -9 of the agent with its calls held', async () => {
    const ids = newIds(8, 'killed');
    const canceled = ids.slice(0, 4);
    const processed = ids.slice(4);
    // Each charge is applied at once and its answer held: in flight, its outcome unknown to sas.
    await fx.setFaults('payment', { holdOperations: ['charge'] });
    const victim = await fx.system.spawn('agent-payment', { AGENT_MAPPING_FILE: mapping });
    await fx.submit(ids.map((id) => fx.order(id, { workflow: 'steady-fulfilment' })));
    await waitForApplied('payment.charge', ids);
    await cancelAll(canceled, 'while its charge is in flight');
    await victim.kill('SIGKILL');
    await fx.setFaults('payment', {});
    await fx.remote('/admin/release/payment', { method: 'POST' });
    const replacement = await fx.system.spawn('agent-payment', { AGENT_MAPPING_FILE: mapping });
    try {
      // Error too, so a failed undo fails the test at once, naming the orders, rather than at the deadline.
      const docs = await fx.waitForStates(ids, ['Canceled', 'Processed', 'Error'], 45_000);
      expect(stateOf(docs, ids)).toEqual([...canceled.map((id) => [id, 'Canceled']), ...processed.map((id) => [id, 'Processed'])]);
      expect(recordProblems(await fx.ledger(), canceled, processed)).toEqual([]);
      // Not vacuous: the refunds had no charge result and found the charges by their key.
      expect(foundForward(replacement)).toBeGreaterThanOrEqual(canceled.length);
    } finally {
      await replacement.stop();
    }
  });

  it('leaves no record of an order canceled while its first call is in flight at a live agent', async () => {
    const ids = newIds(4, 'in-flight');
    const payment = await fx.system.spawn('agent-payment', { AGENT_MAPPING_FILE: mapping });
    try {
      await fx.setFaults('inventory', { holdOperations: ['reserve'] });
      await fx.submit(ids.map((id) => fx.order(id, { workflow: 'steady-fulfilment' })));
      await waitForApplied('inventory.reserve', ids);
      await cancelAll(ids, 'while its reservation is in flight');
      const docs = await fx.waitForStates(ids, ['Canceled', 'Error'], 45_000);
      await fx.remote('/admin/release/inventory', { method: 'POST' });
      expect(stateOf(docs, ids)).toEqual(ids.map((id) => [id, 'Canceled']));
      expect(recordProblems(await fx.ledger(), ids, [])).toEqual([]);
    } finally {
      await payment.stop();
    }
  });
});
