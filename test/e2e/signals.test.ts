import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { findWorkspaceRoot } from '@sas/stack';
import { SasClient } from '@sas/client';
import { scrapeMetrics } from '@sas/testkit';
import { orderFulfilmentV1, type WorkflowDefinition } from '@sas/workflow';
import { SystemFixture } from '../support/system-fixture';
import { fastFulfilment } from '../support/test-workflows';

// Wait and signal steps end to end: real Redis, MongoDB stand-in, services and agents as processes.

/** The test workflows' steps: order-fulfilment's, with a short complete-by and quick retries. */
const [reserve, charge, ship] = fastFulfilment.steps;

/** Reserve, wait for the `approved` signal (a minute), cool off 3 s, then charge and ship. */
const approvalThenCoolOff: WorkflowDefinition = {
  ...orderFulfilmentV1,
  name: 'approval-cool-off',
  steps: [reserve!, { name: 'approval', signal: { name: 'approved', timeoutMs: 60_000, onTimeout: 'compensate' } }, { name: 'cool-off', wait: { ms: 3_000 } }, charge!, ship!],
};

/** Reserve, then wait 1.5 s for `approved`; without it the reservation is undone. */
const approvalOrUndo: WorkflowDefinition = {
  ...orderFulfilmentV1,
  name: 'approval-or-undo',
  steps: [reserve!, { name: 'approval', signal: { name: 'approved', timeoutMs: 1_500, onTimeout: 'compensate' } }, charge!],
};

function workflowsFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sas-signal-workflows-')), 'workflows.json');
  writeFileSync(file, JSON.stringify([approvalThenCoolOff, approvalOrUndo], null, 2));
  return file;
}

describe('wait and signal steps (real processes, private Redis)', () => {
  let fx: SystemFixture;
  let client: SasClient;
  let workflows: string;

  /** Runs the `sas` CLI against the fixture's stack (direct path: no dashboard variables), as an operator would. */
  function sas(args: string[]): Promise<{ code: number; out: string }> {
    return new Promise((resolve) => {
      const env = { ...process.env, ...fx.stack.env, WORKFLOWS_FILE: workflows, SAS_DASHBOARD_URL: '', SAS_DASHBOARD_TOKEN: '' };
      execFile(process.execPath, [join(findWorkspaceRoot(), 'tools/cli/dist/main.js'), ...args], { env, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: `${stdout}${stderr}` });
      });
    });
  }

  beforeAll(async () => {
    const WORKFLOWS_FILE = workflowsFile();
    workflows = WORKFLOWS_FILE;
    fx = await SystemFixture.start(
      'signals',
      { schedulers: 1, supervisors: 1 },
      { submission: { WORKFLOWS_FILE }, scheduler: { WORKFLOWS_FILE, POLL_INTERVAL_MS: '300', PROBE_PORT: '0' }, supervisor: { WORKFLOWS_FILE, SWEEP_INTERVAL_MS: '200' } },
    );
    client = new SasClient({ redisUrl: fx.stack.env['REDIS_URL'] ?? '', prefix: fx.stack.queuePrefix });
  });
  afterAll(async () => {
    await client?.close();
    await fx?.stop();
  });

  const stepState = async (orderId: string, step: string): Promise<string | undefined> => (await fx.processes({ orderId }))[0]?.steps.find((s) => s.name === step)?.state;

  it('keeps an order waiting for its signal, goes on when it comes, and fires its timer after the scheduler was killed and restarted', async () => {
    const orderId = 'signal-then-timer';
    await fx.submit([fx.order(orderId, { workflow: 'approval-cool-off' })]);
    await fx.stack.waitFor(async () => (await stepState(orderId, 'approval')) === 'Running', { timeoutMs: 20_000, description: 'the approval step to wait' });

    const answer = await client.signal(orderId, 'approved', { approvedBy: 'ann' }, { timeoutMs: 15_000 });
    expect(answer).toMatchObject({ ok: true, outcome: 'consumed', orderId });
    expect(await client.signal(orderId, 'approved', { approvedBy: 'ann' }, { timeoutMs: 15_000 })).toMatchObject({ ok: true, outcome: 'repeat' });

    await fx.stack.waitFor(async () => (await stepState(orderId, 'cool-off')) === 'Running', { timeoutMs: 20_000, description: 'the cool-off timer to start' });
    const [scheduler] = fx.system.byRole('scheduler');
    // The one scheduler counted both answers by outcome (before its restart sets them back to zero).
    const probePort = scheduler!.lines.find((l) => l.json?.['msg'] === 'scheduler ready')?.json?.['probePort'];
    const scraped = await scrapeMetrics(`http://127.0.0.1:${String(probePort)}/metrics`);
    expect(['consumed', 'repeat', 'refused'].map((outcome) => scraped.total('sas_scheduler_signals_total', { outcome }))).toEqual([1, 1, 0]);
    await scheduler!.kill('SIGKILL');
    await scheduler!.restart();
    await scheduler!.waitForLine((l) => l.json?.['msg'] === 'scheduler ready' && l.run === 2, 20_000, 'restarted scheduler ready');

    const [done] = await fx.waitForStates([orderId], ['Processed'], 30_000);
    const approval = done!.steps.find((s) => s.name === 'approval')!;
    const coolOff = done!.steps.find((s) => s.name === 'cool-off')!;
    expect(approval.result).toEqual({ approvedBy: 'ann' });
    const firedAt = Date.parse(String(coolOff.result?.['firedAt']));
    expect(firedAt).toBeGreaterThanOrEqual(coolOff.waitUntil!.getTime());
    expect(done!.signals).toHaveLength(1);
    // One effect per forward step, the charge after the timer fired.
    const effects = (await fx.ledger()).filter((e) => e.orderId === orderId);
    expect(effects.map((e) => `${e.service}.${e.operation}`)).toEqual(['inventory.reserve', 'payment.charge', 'shipping.create']);
    expect(effects[1]!.at).toBeGreaterThanOrEqual(coolOff.waitUntil!.getTime());
  });

  it('applies a signal sent right after submit, while the submission is not stored yet: the client waits for the order', async () => {
    const orderId = 'signal-before-stored';
    const [submission] = fx.system.byRole('submission');
    const [scheduler] = fx.system.byRole('scheduler');
    // No submission service: the order is queued, not stored, until after the signal was first answered.
    await submission!.stop();
    try {
      await client.submit({ orderId, workflow: 'approval-cool-off', payload: { sku: 'kettle', quantity: 1, amount: 2500 } });
      const signaled = client.signal(orderId, 'approved', { approvedBy: 'ann' }, { timeoutMs: 30_000 });
      await scheduler!.waitForLine((l) => l.json?.['outcome'] === 'not-found' && l.json?.['orderId'] === orderId, 15_000, 'the signal to find no order first');
      await submission!.restart();
      const answer = await signaled;
      expect(answer).toMatchObject({ ok: true, orderId });
      expect(['kept', 'consumed']).toContain(answer.outcome);
    } finally {
      if (!submission!.running) await submission!.restart();
    }
    await fx.stack.waitFor(async () => (await stepState(orderId, 'approval')) === 'Completed', { timeoutMs: 20_000, description: 'the approval step to take the signal' });
  });

  it('undoes the reservation when no signal comes in time, and answers a late signal that it was not used', async () => {
    const orderId = 'signal-timeout';
    await fx.submit([fx.order(orderId, { workflow: 'approval-or-undo' })]);
    const [doc] = await fx.waitForStates([orderId], ['Compensated'], 30_000);
    expect(doc!.steps.map((s) => s.state)).toEqual(['Compensated', 'Failed', 'NotStarted']);

    const late = await client.signal(orderId, 'approved', null, { timeoutMs: 15_000 });
    expect(late).toMatchObject({ ok: false, outcome: 'refused', message: 'process is Compensated; signal not used' });
    const effects = (await fx.ledger()).filter((e) => e.orderId === orderId);
    expect(effects.map((e) => `${e.service}.${e.operation}`)).toEqual(['inventory.reserve', 'inventory.release']);
  });

  it('takes a signal from sas signal (direct path), prints what became of it, and audits it under the CLI principal', async () => {
    const orderId = 'signal-from-cli';
    await fx.submit([fx.order(orderId, { workflow: 'approval-cool-off' })]);
    await fx.stack.waitFor(async () => (await stepState(orderId, 'approval')) === 'Running', { timeoutMs: 20_000, description: 'the approval step to wait' });

    const sent = await sas(['signal', orderId, '--name', 'approved', '--data', '{"approvedBy":"ops"}']);
    expect(sent.code).toBe(0);
    expect(sent.out).toMatch(/^matched orderId signal-from-cli → process .+\nconsumed: signal approved \(approved\.[0-9a-f]{24}\) from cli:.+; consumed by approval; /);
    const principal = `cli:${userInfo().username}@${hostname()}`;
    const entry = await fx.db.collection('audit_log').findOne({ action: 'process.signal', orderId });
    expect(entry).toMatchObject({ principal, route: 'cli sas signal', outcome: 'ok', status: 0 });
    await fx.waitForStates([orderId], ['Processed'], 30_000);
  });
});
