import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { SasClient } from '@sas/client';
import type { AuditEntry, ProcessDocument, ProcessEventEntry } from '@sas/contracts';
import { TestStack } from '@sas/testkit';
import { WORKSPACE_ROOT } from '../support/pack-workspace';

/**
 * The operator commands of the built `sas` as real processes against a real stack (private Redis,
 * MongoDB as resolved, a submission service and a scheduler): a process named by orderId or by
 * process id, an id that is both refused as ambiguous, and output into a closed pipe ending
 * quietly. No agent runs, so the orders stay Processing at their first step until canceled.
 * A dashboard runs too: a write with SAS_DASHBOARD_URL and SAS_DASHBOARD_TOKEN goes through its API
 * and is audited under the token's principal; one without them is audited by the CLI as
 * cli:<user>@<host> (issue 22).
 */

const MAIN = join(WORKSPACE_ROOT, 'tools', 'cli', 'dist', 'main.js');

describe('the sas operator commands against a running system', () => {
  let stack: TestStack;
  let first: ProcessDocument;
  let clashing: ProcessDocument;
  let dashboardUrl: string;
  let apiProcess: ProcessDocument;
  const token = randomBytes(24).toString('base64url');
  const cliPrincipal = `cli:${userInfo().username}@${hostname()}`;
  const direct = { SAS_DASHBOARD_URL: undefined, SAS_DASHBOARD_TOKEN: undefined };

  const sasWith = (env: NodeJS.ProcessEnv, ...args: string[]): { status: number | null; stdout: string; stderr: string } =>
    spawnSync(process.execPath, [MAIN, ...args], { env: { ...process.env, ...stack.env, ...env }, encoding: 'utf8', timeout: 60_000 });
  const sas = (...args: string[]): { status: number | null; stdout: string; stderr: string } => sasWith(direct, ...args);
  const viaApi = (...args: string[]): { status: number | null; stdout: string; stderr: string } => sasWith({ SAS_DASHBOARD_URL: dashboardUrl, SAS_DASHBOARD_TOKEN: token }, ...args);

  /** The audit entry of a write on an order, once recorded (the dashboard records after it answers). */
  const auditOf = (action: string, orderId: string): Promise<AuditEntry> => auditWhere({ action, orderId });
  const auditWhere = async (filter: Partial<AuditEntry>): Promise<AuditEntry> => {
    const db = (await stack.mongoClient()).db();
    return stack.waitFor(() => db.collection<AuditEntry>('audit_log').findOne(filter), { timeoutMs: 15_000, description: `audit entry ${JSON.stringify(filter)}` });
  };

  /** `sas ARGS | reader` in bash with pipefail, so the status is sas's own. */
  const piped = (args: string, reader: string): { status: number | null; stdout: string; stderr: string } =>
    spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${MAIN}" ${args} | ${reader}`], {
      env: { ...process.env, ...stack.env },
      encoding: 'utf8',
      timeout: 60_000,
    });

  const processOf = async (orderId: string): Promise<ProcessDocument> => {
    const db = (await stack.mongoClient()).db();
    return stack.waitFor(() => db.collection<ProcessDocument>('processes').findOne({ orderId, state: 'Processing' }), {
      timeoutMs: 30_000,
      description: `order ${orderId} Processing`,
    });
  };

  beforeAll(async () => {
    stack = await TestStack.start({ name: 'cli-operator-commands' });
    await stack.spawn('submission');
    await stack.spawn('scheduler');
    const dashboard = await stack.spawn('dashboard', { PORT: '0', DASHBOARD_TOKENS: `operator:alice:${token}` });
    const ready = await dashboard.waitForLine((l) => l.json?.['msg'] === 'dashboard ready', 30_000, 'dashboard ready');
    dashboardUrl = String(ready.json?.['url']);
    const client = new SasClient({ redisUrl: stack.env['REDIS_URL'] as string, prefix: stack.queuePrefix });
    try {
      await client.submit({ orderId: 'cli-first', workflow: 'order-fulfilment', payload: { sku: 'kettle', amount: 30 } });
      first = await processOf('cli-first');
      // An order whose orderId is the first process's id: that text names two processes.
      await client.submit({ orderId: first._id, workflow: 'order-fulfilment', payload: { sku: 'mug', amount: 5 } });
      clashing = await processOf(first._id);
      await client.submit({ orderId: 'cli-api', workflow: 'order-fulfilment', payload: { sku: 'kettle', amount: 30 } });
      await client.submit({ orderId: 'cli-direct', workflow: 'order-fulfilment', payload: { sku: 'kettle', amount: 30 } });
      apiProcess = await processOf('cli-api');
      await processOf('cli-direct');
    } finally {
      await client.close();
    }
  });
  afterAll(() => stack?.stop());

  it('shows a process named by its orderId and says so on the first line', () => {
    const r = sas('status', 'cli-first');
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    expect(r.stdout.split('\n')[0]).toBe(`matched orderId cli-first → process ${first._id}`);
    expect(r.stdout).toContain(`state Processing`);
  });

  it('refuses a text that is one process id and another orderId, and takes it when told which', () => {
    const r = sas('status', first._id);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`'${first._id}' is ambiguous: it is the process id of ${first._id} (order cli-first) and the orderId of process ${clashing._id}`);
    expect(sas('status', '--process-id', first._id).stdout.split('\n')[0]).toBe(`matched process id ${first._id} (order cli-first)`);
    expect(sas('status', '--order-id', first._id).stdout.split('\n')[0]).toBe(`matched orderId ${first._id} → process ${clashing._id}`);
  });

  it('says clearly when neither a process id nor an orderId matches', () => {
    const r = sas('cancel', 'no-such-order');
    expect(r.status).toBe(1);
    expect(r.stdout).toBe(`refused: no process no-such-order: no process has the process id or orderId 'no-such-order' in database ${stack.dbName}; check it (sas processes lists them), or it was removed after its retention\n`);
  });

  it('counts the processes by state, workflow and step', () => {
    const r = sas('processes', '--workflow', 'order-fulfilment', '--state', 'Processing');
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n').slice(0, 4)).toEqual([
      '4 processes (state Processing · workflow order-fulfilment)',
      '  by state:    Processing 4',
      '  by workflow: order-fulfilment 4',
      '  by step:     reserve-inventory 4   (the current step; for Error, the step that failed)',
    ]);
  });

  it('ends quietly with status 0 when the reader of its output has gone', () => {
    // `true` exits before sas writes anything: every write meets a closed pipe.
    for (const args of ['status cli-first', 'processes', '--help', 'processes --help']) {
      expect([args, piped(args, 'true')]).toEqual([args, expect.objectContaining({ status: 0, stderr: '' })]);
    }
    const head = piped('status cli-first', 'head -1');
    expect(head).toMatchObject({ status: 0, stderr: '', stdout: `matched orderId cli-first → process ${first._id}\n` });
  });

  it('resubmits and cancels a process named by its orderId, saying which process it acted on, audited as cli:<user>@<host>', async () => {
    const refused = sas('resubmit', 'cli-first');
    expect(refused.status).toBe(1);
    expect(refused.stdout).toMatch(new RegExp(`^matched orderId cli-first → process ${first._id}\nrefused: `));
    expect(await auditOf('process.resubmit', 'cli-first')).toMatchObject({ principal: cliPrincipal, address: 'local', route: 'cli sas resubmit', target: `process ${first._id}`, outcome: 'refused', status: 1 });
    const canceled = sas('cancel', 'cli-first', '--reason', 'customer withdrew');
    expect({ status: canceled.status, stderr: canceled.stderr }).toEqual({ status: 0, stderr: '' });
    expect(canceled.stdout).toMatch(new RegExp(`^matched orderId cli-first → process ${first._id}\ndone: canceled by ${cliPrincipal}`));
  });

  it('cancels on the direct path under cli:<user>@<host> and records the write in the audit log itself', async () => {
    const r = sas('cancel', 'cli-direct', '--reason', 'direct path');
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    const entry = await auditOf('process.cancel', 'cli-direct');
    expect(entry).toMatchObject({ principal: cliPrincipal, address: 'local', route: 'cli sas cancel', outcome: 'ok', status: 0, detail: 'direct path' });
  });

  it('cancels through the dashboard API with the token: audited under its principal, which is the by in the history', async () => {
    const r = viaApi('cancel', 'cli-api', '--reason', 'api path');
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    const processId = apiProcess._id;
    expect(r.stdout).toMatch(new RegExp(`^matched orderId cli-api → process ${processId}\ndone: canceled by operator:alice`));
    const entry = await auditOf('process.cancel', 'cli-api');
    expect(entry).toMatchObject({ principal: 'operator:alice', role: 'operator', route: `POST /api/processes/${processId}/cancel`, outcome: 'ok', status: 200, detail: 'api path' });
    // The history as the dashboard shows it (delivered events and those the outbox still owes).
    const shown = await fetch(`${dashboardUrl}/api/processes/${processId}`, { headers: { authorization: `Bearer ${token}` } });
    const history = ((await shown.json()) as { history: ProcessEventEntry[] }).history.map((e) => e.why);
    expect(history.filter((why) => why.includes('by operator:alice'))).not.toEqual([]);
    expect(history.join('\n')).not.toContain(cliPrincipal);
  });

  it('pauses an agent and dry-runs a bulk cancel through the API, and resumes directly: each audited under its path\'s principal', async () => {
    const paused = viaApi('pause', 'shipping', '--reason', 'carrier maintenance');
    expect(paused).toMatchObject({ status: 0, stderr: '', stdout: expect.stringMatching(/^done: agent shipping paused by operator:alice: carrier maintenance/) });
    expect(await auditWhere({ action: 'agent.pause', target: 'agent shipping' })).toMatchObject({ principal: 'operator:alice', outcome: 'ok' });
    const resumed = sas('resume', 'shipping', '--reason', 'carrier is back');
    expect(resumed).toMatchObject({ status: 0, stderr: '', stdout: expect.stringMatching(new RegExp(`^done: agent shipping resumed by ${cliPrincipal}: carrier is back`)) });
    expect(await auditWhere({ action: 'agent.resume', target: 'agent shipping' })).toMatchObject({ principal: cliPrincipal, address: 'local', route: 'cli sas resume', outcome: 'ok' });
    const dry = viaApi('bulk', 'cancel', '--state', 'Error', '--reason', 'clean up', '--dry-run');
    expect(dry).toMatchObject({ status: 0, stderr: '', stdout: 'dry run: 0 processes match; nothing started\n' });
    expect(await auditWhere({ action: 'bulk.dry-run' })).toMatchObject({ principal: 'operator:alice', route: 'POST /api/bulk', outcome: 'ok' });
  });

  it('refuses --by on both paths, and says what to do about a token the dashboard does not accept', () => {
    const typed = viaApi('cancel', 'cli-api', '--by', 'mallory');
    expect(typed.status).toBe(1);
    expect(typed.stderr).toMatch(/^sas: --by is no longer accepted: /);
    expect(sas('resubmit', 'cli-api', '--by', 'mallory').stderr).toMatch(/^sas: --by is no longer accepted: /);
    const wrong = sasWith({ SAS_DASHBOARD_URL: dashboardUrl, SAS_DASHBOARD_TOKEN: 'not-the-token' }, 'cancel', 'cli-api');
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain(`(401: the dashboard at ${dashboardUrl} does not accept SAS_DASHBOARD_TOKEN`);
  });
});
