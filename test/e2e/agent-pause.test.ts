import { hostname, userInfo } from 'node:os';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { ProcessDocument } from '@sas/contracts';
import { findWorkspaceRoot, type ServiceProcess } from '@sas/stack';
import { scrapeMetrics } from '@sas/testkit';
import { SystemFixture } from '../support/system-fixture';
import { fastRoleEnv } from '../support/test-workflows';

type Json = Record<string, unknown>;

/** Who the CLI's direct-path writes name (issue 22): the OS user and host, not a typed --by. */
const CLI_PRINCIPAL = `cli:${userInfo().username}@${hostname()}`;

describe('pausing the payment agent (real processes, private Redis)', () => {
  let fx: SystemFixture;
  let url: string;
  let token: string;
  let workflowsFile: string;

  const call = async (method: 'GET' | 'POST', path: string, body?: Json): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  /**
   * Runs the `sas` CLI against the fixture's stack, as an operator would. Not `spawnSync`: a blocked
   * event loop misses the dashboard closing an idle keep-alive socket, and the next fetch fails on it.
   */
  function sas(args: string[]): Promise<{ code: number; out: string }> {
    return new Promise((resolve) => {
      const env = { ...process.env, ...fx.stack.env, WORKFLOWS_FILE: workflowsFile };
      execFile(process.execPath, [join(findWorkspaceRoot(), 'tools/cli/dist/main.js'), ...args], { env, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: `${stdout}${stderr}` });
      });
    });
  }

  /** Lines in which this scheduler run said it now holds payment's work. */
  const sawPause = (scheduler: ServiceProcess): number =>
    scheduler.lines.filter((l) => l.json?.['msg'] === 'paused agents changed: payment; dispatches to paused agents are held').length;

  const paymentEffects = async (): Promise<number> => (await fx.ledger()).filter((e) => e.service === 'payment').length;

  beforeAll(async () => {
    const env = fastRoleEnv();
    workflowsFile = String(env['scheduler']?.['WORKFLOWS_FILE']);
    env['scheduler'] = { ...env['scheduler'], PAUSE_CACHE_MS: '200', RELEASE_RATE: '4' };
    env['supervisor'] = { ...env['supervisor'], PAUSE_CACHE_MS: '200' };
    fx = await SystemFixture.start('agent-pause', { schedulers: 1, supervisors: 1, dashboard: 1 }, env);
    const [dashboard] = fx.system.byRole('dashboard');
    url = String(dashboard?.lines.find((l) => l.json?.['msg'] === 'dashboard ready')?.json?.['url']);
    token = String(fx.system.dashboardToken);
  });
  afterAll(() => fx?.stop());

  it('refuses a pause without a reason or of an unknown agent, naming what to do', async () => {
    expect(await call('POST', '/api/agents/payment/pause', {})).toEqual({
      status: 400,
      body: { error: 'Say why you pause payment: send {"reason":"…"} (it is recorded with your name)' },
    });
    const unknown = await call('POST', '/api/agents/paymnet/pause', { reason: 'typo' });
    expect(unknown.status).toBe(404);
    expect(unknown.body['error']).toBe("No agent 'paymnet' is known here (known: inventory, payment, shipping); check the name, or add it to the dashboard's AGENTS");
    expect(await sas(['pause', 'payment'])).toMatchObject({ code: 1, out: expect.stringContaining('say why you pause payment: --reason') });
  });

  it('holds orders at payment through a scheduler restart, then releases them all once resumed', async () => {
    const [scheduler] = fx.system.byRole('scheduler');
    if (!scheduler) throw new Error('no scheduler');
    const paused = await call('POST', '/api/agents/payment/pause', { reason: 'PSP maintenance' });
    expect(paused).toMatchObject({ status: 200, body: { changed: true, message: 'agent payment paused by operator:local: PSP maintenance; new dispatches to it are held' } });
    // Wait until the scheduler has read the pause: before that a dispatch may still leave (decision 49).
    await fx.stack.waitFor(() => sawPause(scheduler) > 0, { timeoutMs: 10_000, description: 'the scheduler to see the pause' });

    const orders = ['pause-1', 'pause-2', 'pause-3', 'pause-4', 'pause-5', 'pause-6'];
    await fx.submit(orders.map((id) => fx.order(id, { workflow: 'fast-fulfilment' })));
    const held = await fx.stack.waitFor(
      async () => {
        const docs = await fx.processes({ orderId: { $in: orders }, heldFor: 'payment', state: 'Pending' });
        return docs.length === orders.length ? docs : null;
      },
      { timeoutMs: 30_000, description: 'every order to be held at payment' },
    );
    expect(held.map((d) => [d.steps[0]?.state, d.steps[1]?.state, d.failureCount])).toEqual(orders.map(() => ['Completed', 'NotStarted', 0]));
    expect(await paymentEffects()).toBe(0);

    const agents = (await call('GET', '/api/agents')).body['agents'] as Json[];
    expect(agents.find((a) => a['agent'] === 'payment')).toMatchObject({ paused: true, by: 'operator:local', reason: 'PSP maintenance', held: 6 });
    const metrics = await scrapeMetrics(`${url}/metrics`);
    expect(metrics.series('sas_agent_paused').map((s) => [s.labels['agent'], s.value])).toEqual([['inventory', 0], ['payment', 1], ['shipping', 0]]);
    expect(metrics.series('sas_agent_held_processes').find((s) => s.labels['agent'] === 'payment')?.value).toBe(6);
    expect(await sas(['agents'])).toMatchObject({ code: 0, out: expect.stringMatching(/payment: PAUSED since .* by operator:local: PSP maintenance; 6 held/) });

    // A held order canceled: nothing in flight, so it goes straight to undoing its reservation.
    const canceled = held.find((d) => d.orderId === 'pause-6') as ProcessDocument;
    const cancel = await call('POST', `/api/processes/${canceled._id}/cancel`, { reason: 'customer asked' });
    expect(cancel.status).toBe(200);
    await fx.waitForStates(['pause-6'], ['Canceled'], 30_000);

    // Every scheduler restarts: the pause is read back from MongoDB, the work stays held.
    const before = sawPause(scheduler);
    await scheduler.kill();
    await scheduler.restart();
    await fx.stack.waitFor(() => sawPause(scheduler) > before, { timeoutMs: 20_000, description: 'the restarted scheduler to see the pause' });
    const stillHeld = await fx.processes({ orderId: { $in: orders.slice(0, 5) }, heldFor: 'payment', state: 'Pending' });
    expect(stillHeld).toHaveLength(5);
    expect(await paymentEffects()).toBe(0);

    const resumed = await sas(['resume', 'payment', '--reason', 'PSP is back']);
    expect(resumed).toEqual({ code: 0, out: `done: agent payment resumed by ${CLI_PRINCIPAL}: PSP is back; its held work is released at a bounded rate\n` });
    const done = await fx.waitForStates(orders.slice(0, 5), ['Processed'], 60_000);
    expect(done.map((d) => d.failureCount)).toEqual([0, 0, 0, 0, 0]);
    const ledger = await fx.ledger();
    for (const id of orders.slice(0, 5)) expect(ledger.filter((e) => e.orderId === id && e.operation === 'charge')).toHaveLength(1);
    expect(ledger.filter((e) => e.orderId === 'pause-6').map((e) => e.operation)).toEqual(['reserve', 'release']);
    expect(((await call('GET', '/api/agents')).body['agents'] as Json[]).find((a) => a['agent'] === 'payment')).toMatchObject({ paused: false, by: CLI_PRINCIPAL, held: 0 });
    expect(await fx.deadLetters()).toEqual([]);
  });
});
