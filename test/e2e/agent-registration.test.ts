import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueueNames } from '@sas/contracts';
import { findWorkspaceRoot, type ServiceProcess } from '@sas/stack';
import { QueueCollector, TestStack } from '@sas/testkit';

/**
 * Issue 23 §5 with real processes: the HTTP agent registers what it serves in MongoDB, `sas agents`
 * lists it, `sas workflows check --live` catches a compensation typo (`refnd`) that the offline
 * check cannot see, and an agent gone (closed cleanly, or killed) stops counting as live.
 */
describe('agent registration and the live workflow check (real processes)', () => {
  let stack: TestStack;
  let dir: string;

  beforeAll(async () => {
    stack = await TestStack.start({ name: 'agent-registration' });
    dir = mkdtempSync(join(tmpdir(), 'sas-agent-registration-'));
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function sas(args: string[]): Promise<{ code: number; out: string }> {
    return new Promise((resolve) => {
      execFile(process.execPath, [join(findWorkspaceRoot(), 'tools/cli/dist/main.js'), ...args], { env: { ...process.env, ...stack.env }, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: `${stdout}${stderr}` });
      });
    });
  }

  function file(name: string, content: unknown): string {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(content));
    return path;
  }

  /** A trip workflow whose card step is undone by `compensation`. */
  function trip(compensation: string): string {
    return file(`trip-${compensation}.json`, [
      {
        name: 'trip',
        version: 1,
        steps: [{ name: 'charge-card', agent: 'payment', operation: 'charge', compensation, completeByMs: 5000, retry: {} }],
        failureThreshold: 3,
        onThreshold: { policy: 'compensate' },
        onPermanentFailure: 'compensate',
        retentionMs: 60_000,
      },
    ]);
  }

  async function startPaymentAgent(): Promise<ServiceProcess> {
    // The remote is never called here: only what the agent serves matters.
    const mapping = file('payment-mapping.json', { operations: { charge: { url: 'http://127.0.0.1:9/charges' }, refund: { url: 'http://127.0.0.1:9/refunds' } } });
    const agent = await stack.spawn('agent', { AGENT: 'payment', AGENT_MAPPING_FILE: mapping, REMOTE_URL: 'http://127.0.0.1:9', REGISTRATION_INTERVAL_MS: '500', AGENT_VERSION: '1.2.3' });
    await stack.waitFor(async () => (await stack.mongoClient()).db().collection('agent_registrations').findOne({ agent: 'payment' }), {
      timeoutMs: 60_000,
      description: 'the payment agent to register',
    });
    return agent;
  }

  it('catches a compensation typo while the agent runs, and reports a stopped agent as unserved', async () => {
    // Offline the typo is a valid workflow: only the agents know `refnd` is not a name they serve.
    expect(await sas(['workflows', 'check', trip('refnd')])).toMatchObject({ code: 0 });
    const agent = await startPaymentAgent();

    const listed = await sas(['agents']);
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(/^payment: running, never paused; 0 held\n {2}instance \S+ v1\.2\.3, up since \S+, seen \d+s ago: charge, refund$/m);

    const typo = await sas(['workflows', 'check', trip('refnd'), '--live']);
    expect(typo).toEqual({
      code: 1,
      out: expect.stringContaining("unserved trip@1 step charge-card: compensation 'refnd' — agent 'payment' (1 live instance(s)) serves charge, refund, not 'refnd'\n") as unknown as string,
    });
    // A scheduler started on the typo warns and alerts (it still runs: agents may start later).
    const alerts = new QueueCollector<Record<string, unknown>>({ redisUrl: stack.env['REDIS_URL'] ?? '', prefix: stack.queuePrefix, queue: QueueNames.alerts });
    await alerts.start();
    try {
      const scheduler = await stack.spawn('scheduler', { WORKFLOWS_FILE: trip('refnd'), AGENT_CHECK_DELAY_MS: '0', PROBE_PORT: '-1' });
      const alert = await stack.waitFor(() => alerts.messages.find((a) => a['kind'] === 'OperationUnserved'), { timeoutMs: 60_000, description: 'the scheduler’s OperationUnserved alert' });
      expect(alert['reason']).toBe("no live agent serves: trip@1 step charge-card: compensation 'refnd' — agent 'payment' (1 live instance(s)) serves charge, refund, not 'refnd'");
      expect(scheduler.running).toBe(true);
      await scheduler.stop();
    } finally {
      await alerts.close();
    }

    const fixed = await sas(['workflows', 'check', trip('refund'), '--live']);
    expect(fixed).toMatchObject({ code: 0, out: expect.stringContaining('live: every step operation and compensation of 1 workflow(s) is served (live agents: payment)') as unknown as string });

    // A clean stop removes the registration at once; nothing serves the workflow any more.
    await agent.stop();
    const gone = await sas(['workflows', 'check', trip('refund'), '--live']);
    expect(gone.code).toBe(1);
    expect(gone.out).toContain("unserved trip@1 step charge-card: operation 'charge' — no live instance of agent 'payment' is registered");
  }, 180_000);

  it('drops a killed agent from the live list once three heartbeats are missed', async () => {
    const agent = await startPaymentAgent();
    await agent.kill('SIGKILL');
    await stack.waitFor(async () => ((await sas(['workflows', 'check', trip('refund'), '--live'])).code === 1 ? true : undefined), {
      timeoutMs: 60_000,
      description: 'the killed agent to stop counting as live',
    });
    const gone = await sas(['workflows', 'check', trip('refund'), '--live']);
    expect(gone.out).toContain("operation 'charge' — no live instance of agent 'payment' is registered");
  }, 180_000);
});
