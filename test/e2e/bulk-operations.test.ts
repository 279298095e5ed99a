import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { BulkOperationDocument, ProcessEventEntry } from '@sas/contracts';
import { findWorkspaceRoot } from '@sas/stack';
import { repeatedEffects } from '../support/ledger-checks';
import { SystemFixture } from '../support/system-fixture';
import { fastRoleEnv } from '../support/test-workflows';
import { orderFulfilmentV1, type WorkflowDefinition } from '@sas/workflow';

/**
 * Workflows that go to Error at the first complete-by passed, with a complete-by long enough that
 * a loaded machine does not fail them again after the resubmit; one per test, so each filter
 * selects only its own orders.
 */
function bulkRoleEnv(): Partial<Record<string, NodeJS.ProcessEnv>> {
  const steps = orderFulfilmentV1.steps.map((s) => ({ ...s, completeByMs: 15_000, retry: { maxAttempts: 4, initialBackoffMs: 30, maxBackoffMs: 300, multiplier: 2, jitter: 0.5 } }));
  const workflow = (name: string): WorkflowDefinition => ({ ...orderFulfilmentV1, name, steps, failureThreshold: 1, onThreshold: { policy: 'error' } });
  const file = join(mkdtempSync(join(tmpdir(), 'sas-bulk-workflows-')), 'workflows.json');
  writeFileSync(file, JSON.stringify([workflow('bulk-api'), workflow('bulk-cli')]));
  const env = fastRoleEnv();
  return { ...env, submission: { WORKFLOWS_FILE: file }, scheduler: { ...env['scheduler'], WORKFLOWS_FILE: file }, supervisor: { ...env['supervisor'], WORKFLOWS_FILE: file } };
}

type Json = Record<string, unknown>;

/** Who the CLI's direct-path writes name (issue 22): the OS user and host, not a typed --by. */
const CLI_PRINCIPAL = `cli:${userInfo().username}@${hostname()}`;

/** Runs the `sas` CLI against the fixture's stack, as an operator would. */
function sas(fx: SystemFixture, args: string[]): { code: number; out: string } {
  const r = spawnSync(process.execPath, [join(findWorkspaceRoot(), 'tools/cli/dist/main.js'), ...args], {
    env: { ...process.env, ...fx.stack.env },
    encoding: 'utf8',
    timeout: 90_000,
  });
  return { code: r.status ?? 1, out: `${r.stdout}${r.stderr}` };
}

describe('bulk resubmit (real processes, two schedulers, private Redis)', () => {
  let fx: SystemFixture;
  let url: string;
  let token: string;

  const call = async (method: 'GET' | 'POST', path: string, body?: Json): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const history = (processId: string): Promise<ProcessEventEntry[]> =>
    fx.db.collection<ProcessEventEntry>('process_events').find({ processId }).sort({ at: 1 }).toArray();

  /** Submits orders with inventory hanging, and waits until every one is in Error. */
  const failOrders = async (ids: string[], workflow: string): Promise<void> => {
    await fx.setFaults('inventory', { hang: true });
    await fx.submit(ids.map((id) => fx.order(id, { workflow })));
    await fx.waitForStates(ids, ['Error'], 90_000);
    await fx.remote('/admin/faults/inventory', { method: 'DELETE' });
  };

  const expectResubmittedOnce = async (ids: string[], by: string, opId: string): Promise<void> => {
    const docs = await fx.waitForStates(ids, ['Processed'], 90_000);
    for (const doc of docs) {
      const resubmits = (await history(doc._id)).filter((e) => e.why.startsWith('resubmitted by'));
      expect(resubmits.map((e) => e.why)).toEqual([`resubmitted by ${by} (bulk ${opId}) from reserve-inventory: inventory is back`]);
    }
    const ledger = (await fx.ledger()).filter((e) => ids.includes(e.orderId));
    expect(repeatedEffects(ledger)).toEqual([]);
    expect(ledger).toHaveLength(ids.length * 3);
  };

  beforeAll(async () => {
    fx = await SystemFixture.start('bulk-operations', { schedulers: 2, supervisors: 1, dashboard: 1 }, bulkRoleEnv());
    await fx.alerts.close();
    const ready = fx.system.byRole('dashboard')[0]?.lines.find((l) => l.json?.['msg'] === 'dashboard ready');
    url = String(ready?.json?.['url']);
    token = String(fx.system.dashboardToken);
  });
  afterAll(() => fx?.stop());

  it('through the API: counts them in a dry run, then resubmits every one once; all end Processed', async () => {
    const ids = ['bulk-api-1', 'bulk-api-2', 'bulk-api-3', 'bulk-api-4'];
    await failOrders(ids, 'bulk-api');
    const filter = { state: 'Error', workflow: 'bulk-api', failedStep: 'reserve-inventory', text: 'complete-by' };

    const dry = await call('POST', '/api/bulk', { command: 'resubmit', filter, reason: 'inventory is back', dryRun: true });
    expect(dry).toEqual({ status: 200, body: { dryRun: true, matched: ids.length } });
    const bad = await call('POST', '/api/bulk', { command: 'resubmit', filter: { ...filter, state: 'Errror' }, reason: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body['error']).toMatch(/state must be one of Pending, Processing/);

    const started = await call('POST', '/api/bulk', { id: 'ops-api-1', command: 'resubmit', filter, reason: 'inventory is back' });
    expect(started).toMatchObject({ status: 202, body: { id: 'ops-api-1' } });
    const again = await call('POST', '/api/bulk', { id: 'ops-api-1', command: 'resubmit', filter, reason: 'inventory is back' });
    expect(again).toMatchObject({ status: 200, body: { id: 'ops-api-1' } });

    const finished = await fx.stack.waitFor(
      async () => {
        const op = (await call('GET', '/api/bulk/ops-api-1')).body as unknown as BulkOperationDocument;
        return op.state === 'Finished' ? op : null;
      },
      { timeoutMs: 60_000, description: 'the bulk operation to finish' },
    );
    expect(finished).toMatchObject({ expected: ids.length, progress: { matched: ids.length, done: ids.length, refused: 0, failed: 0 }, problems: [] });
    expect(((await call('GET', '/api/bulk')).body['operations'] as Json[]).map((o) => o['_id'])).toContain('ops-api-1');
    await expectResubmittedOnce(ids, 'operator:local', 'ops-api-1');
  });

  it('through the CLI: prints progress until done; bulk show reports the result; a bad filter is refused', async () => {
    const ids = ['bulk-cli-1', 'bulk-cli-2', 'bulk-cli-3'];
    await failOrders(ids, 'bulk-cli');

    const bad = sas(fx, ['bulk', 'resubmit', '--state', 'Error', '--since', 'yesterday', '--reason', 'x']);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain('sas: bulk resubmit: since is not a date; give an ISO 8601 instant');

    const run = sas(fx, ['bulk', 'resubmit', '--state', 'Error', '--workflow', 'bulk-cli', '--id', 'ops-cli-1', '--reason', 'inventory is back']);
    expect(run.out).toContain(`started bulk operation ops-cli-1: about ${ids.length} processes`);
    expect(run.out).toContain(`ops-cli-1 resubmit Finished: ${ids.length} of about ${ids.length} processes (${ids.length} done, 0 refused, 0 failed)`);
    expect(run.code).toBe(0);

    const shown = sas(fx, ['bulk', 'show', 'ops-cli-1']);
    expect(shown.out).toContain(`ops-cli-1 resubmit Finished: ${ids.length} of about ${ids.length} processes`);
    await expectResubmittedOnce(ids, CLI_PRINCIPAL, 'ops-cli-1');
  });
});
