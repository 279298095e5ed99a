import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobExecutionStatusEntry, JobSpecificationDocument } from '@sas/contracts';
import { findWorkspaceRoot } from '@sas/stack';
import { SystemFixture } from '../support/system-fixture';
import { fastRoleEnv } from '../support/test-workflows';

/** The runner polls (and renews its lease) this often in these tests. */
const JOBS_POLL_INTERVAL_MS = 200;

describe('persistent job scheduling (real processes, private Redis)', () => {
  let fx: SystemFixture;
  const specDir = mkdtempSync(join(tmpdir(), 'sas-jobs-'));

  beforeAll(async () => {
    const env = fastRoleEnv();
    env['scheduler'] = { ...env['scheduler'], JOBS_POLL_INTERVAL_MS: String(JOBS_POLL_INTERVAL_MS) };
    fx = await SystemFixture.start('jobs', { schedulers: 2, supervisors: 1 }, env);
  });
  afterAll(() => fx?.stop());

  /** Runs the `sas` CLI against the fixture's stack, as an operator would. */
  function sas(args: string[]): { code: number; out: string } {
    const r = spawnSync(process.execPath, [join(findWorkspaceRoot(), 'tools/cli/dist/main.js'), ...args], {
      env: { ...process.env, ...fx.stack.env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { code: r.status ?? 1, out: `${r.stdout}${r.stderr}` };
  }

  function createJob(spec: Record<string, unknown>): void {
    const file = join(specDir, `${String(spec['jobSpecificationKey'])}.json`);
    writeFileSync(file, JSON.stringify(spec));
    const created = sas(['jobs', 'create', '--file', file, '--by', 'test-operator']);
    expect(created.out).toMatch(new RegExp(`created job ${String(spec['jobSpecificationKey'])} `));
    expect(created.code).toBe(0);
  }

  const spec = (key: string, triggerIdentifier: string, timing: Record<string, unknown>): Record<string, unknown> => ({
    jobSpecificationKey: key,
    jobRequestor: 'e2e',
    ...timing,
    // replyTo: the orders' status events reach the fixture's collector, so a Duplicate one would be seen.
    triggerCommand: { type: 'submit', workflow: 'fast-fulfilment', payload: { sku: 'kettle', quantity: 1, amount: 100 }, replyTo: fx.replyTo },
    triggerIdentifier,
    failureCommand: { queue: 'e2e.job-failures', message: { key } },
    failureIdentifier: `${key}-failed`,
  });

  /** Fire times (ms) of the orders a job submitted, from their `<triggerIdentifier>@<fire time>` orderIds. */
  async function fireTimesOf(triggerIdentifier: string): Promise<number[]> {
    const prefix = `${triggerIdentifier}@`;
    const docs = await fx.processes({ orderId: { $gte: prefix, $lt: `${triggerIdentifier}A` } });
    return docs.map((d) => Date.parse(d.orderId.slice(prefix.length))).sort((a, b) => a - b);
  }

  /** `job fired` lines of one job from every scheduler process and every run, counted per fire time (ms). */
  function firingsLogged(key: string): Map<number, number> {
    const counts = new Map<number, number>();
    for (const line of fx.system.byRole('scheduler').flatMap((s) => s.lines)) {
      if (line.json?.['msg'] !== 'job fired' || line.json['job'] !== key) continue;
      const fireTime = Date.parse(String(line.json['fireTime']));
      counts.set(fireTime, (counts.get(fireTime) ?? 0) + 1);
    }
    return counts;
  }

  /**
   * Each fire time fired once. The orders alone cannot show a double firing: MongoDB's unique
   * orderId index (and BullMQ's jobId) absorb the second one. The runner's own evidence can: no
   * (job, fire time) is logged as fired twice across the schedulers, and no order of the job was
   * answered Duplicate. With `everyOrderLogged`, every order's fire time must have its line, so the
   * check is not vacuous (left out where a SIGKILL may cut a line off).
   */
  async function expectEachFireTimeFiredOnce(key: string, triggerIdentifier: string, everyOrderLogged = true): Promise<void> {
    const logged = firingsLogged(key);
    expect([...logged].filter(([, n]) => n > 1).map(([t, n]) => `${new Date(t).toISOString()} fired ${n} times`)).toEqual([]);
    expect(logged.size).toBeGreaterThan(0);
    if (everyOrderLogged) expect((await fireTimesOf(triggerIdentifier)).filter((t) => !logged.has(t))).toEqual([]);
    const duplicates = fx.statuses.messages.filter((m) => (m.orderId ?? '').startsWith(`${triggerIdentifier}@`) && m.status === 'Duplicate');
    expect(duplicates).toEqual([]);
  }

  const job = (key: string): Promise<JobSpecificationDocument | null> =>
    fx.db.collection<JobSpecificationDocument>('job_specifications').findOne({ jobSpecificationKey: key });

  async function currentStatus(key: string): Promise<JobExecutionStatusEntry | undefined> {
    const doc = await job(key);
    if (!doc) return undefined;
    const [latest] = await fx.db
      .collection<JobExecutionStatusEntry>('job_execution_status')
      .find({ jobSpecificationId: doc._id })
      .sort({ updatedTime: -1, revision: -1 })
      .limit(1)
      .toArray();
    return latest;
  }

  /** Waits until the job runner has renewed its lease `polls` more times: that many poll cycles have run. */
  async function waitForRunnerPolls(polls: number): Promise<void> {
    const seen = new Set<number>();
    await fx.stack.waitFor(
      async () => {
        const lease = await fx.db.collection<{ _id: string; expiresAt: Date }>('leases').findOne({ _id: 'job-runner' });
        if (lease) seen.add(lease.expiresAt.getTime());
        return seen.size > polls;
      },
      { timeoutMs: 20_000, intervalMs: 20, description: `${polls} job runner polls (lease renewals)` },
    );
  }

  it('fires a one-off job once at its instant: the order it submits is Processed and the job is TRIGGERED', async () => {
    const instant = new Date(Date.now() + 1500);
    createJob(spec('once', 'once', { singleSchedule: instant.toISOString() }));
    const orderId = `once@${instant.toISOString()}`;
    await fx.waitForStates([orderId], ['Processed'], 30_000);
    expect(await fireTimesOf('once')).toEqual([instant.getTime()]);
    // The order's status events do reach the collector, so the Duplicate check below can see one.
    await fx.stack.waitFor(() => fx.statusesOf(orderId).includes('Received'), { timeoutMs: 20_000, description: 'the order Received status event' });
    await fx.stack.waitFor(async () => (await currentStatus('once'))?.executionStatus === 'TRIGGERED', {
      timeoutMs: 10_000,
      description: 'the one-off job to be TRIGGERED',
    });
    const shown = sas(['jobs', 'show', 'once']);
    expect(shown.out).toMatch(/status TRIGGERED {2}current entry TRIGGERED/);
    expect(shown.out).toMatch(/finished: removed after /);
    expect((await job('once'))?.deleteTime).not.toBeNull();
    await waitForRunnerPolls(3);
    await expectEachFireTimeFiredOnce('once', 'once');
  });

  it('fires a recurring job every second until it is canceled, and never after', async () => {
    createJob(spec('every-second', 'tick', { schedulingSpecification: '*/1 * * * * *' }));
    await fx.stack.waitFor(async () => new Set(await fireTimesOf('tick')).size >= 2, { timeoutMs: 20_000, description: 'two orders from the recurring job' });
    const canceled = sas(['jobs', 'cancel', 'every-second', '--by', 'test-operator']);
    expect(canceled.out).toMatch(/canceled job every-second; removed after /);
    expect(canceled.code).toBe(0);
    const cancelEntry = await fx.stack.waitFor(async () => {
      const current = await currentStatus('every-second');
      return current?.executionStatus === 'CANCELED' ? current : null;
    }, { timeoutMs: 10_000, description: 'the job to be CANCELED' });
    // A firing claimed just before the cancel may still reach the submission service; let it land.
    await waitForRunnerPolls(3);
    const afterCancel = await fireTimesOf('tick');
    await waitForRunnerPolls(5);
    expect(await fireTimesOf('tick')).toEqual(afterCancel);
    expect(Math.max(...afterCancel)).toBeLessThanOrEqual(cancelEntry.updatedTime.getTime());
    await expectEachFireTimeFiredOnce('every-second', 'tick');
    expect(sas(['jobs', 'cancel', 'every-second']).out).toMatch(/refused: Job 'every-second' is CANCELED; only SCHEDULED jobs can be canceled/);
  });

  it('refuses to create a job whose key exists, or whose specification is invalid', () => {
    createJob(spec('nightly', 'nightly', { schedulingSpecification: '0 2 * * *', zoneId: 'Europe/Paris' }));
    const file = join(specDir, 'again.json');
    writeFileSync(file, JSON.stringify(spec('nightly', 'nightly-again', { singleSchedule: '2030-01-01T00:00:00Z' })));
    const dup = sas(['jobs', 'create', '--file', file]);
    expect(dup.code).toBe(1);
    expect(dup.out).toMatch(/refused: A job with key 'nightly' already exists \(SCHEDULED\); choose another key/);
    writeFileSync(file, JSON.stringify(spec('both', 'both', { schedulingSpecification: '0 2 * * *', singleSchedule: '2030-01-01T00:00:00Z' })));
    expect(sas(['jobs', 'create', '--file', file]).out).toMatch(/refused: Job specification is not valid: .*set exactly one of schedulingSpecification .* or singleSchedule/);
    const listed = sas(['jobs', 'list', '--requestor', 'e2e']);
    expect(listed.out).toMatch(/^nightly +e2e +SCHEDULED +next \S+ +cron '0 2 \* \* \*' in Europe\/Paris$/m);
    expect(listed.out).not.toMatch(/^both /m);
    expect(sas(['jobs', 'cancel', 'nightly']).code).toBe(0);
  });

  it('after every scheduler is killed while a job is due, a restarted one fires the missed span once, late, then continues', async () => {
    createJob(spec('crash-tick', 'crash', { schedulingSpecification: '*/1 * * * * *' }));
    await fx.stack.waitFor(async () => (await fireTimesOf('crash')).length >= 1, { timeoutMs: 20_000, description: 'a first order from the job' });
    const schedulers = fx.system.byRole('scheduler').filter((s) => s.running);
    await Promise.all(schedulers.map((s) => s.kill('SIGKILL')));
    const firstMissed = (await job('crash-tick'))?.nextFireTime?.getTime();
    if (firstMissed === undefined) throw new Error('the job has no next fire time after the kill');
    // Nobody fires while every scheduler is down: wait until two occurrences have passed.
    await fx.stack.waitFor(() => Date.now() > firstMissed + 2000, { timeoutMs: 10_000, description: 'two occurrences to pass' });
    expect((await fireTimesOf('crash')).filter((t) => t >= firstMissed)).toEqual([]);

    const [restarted] = schedulers;
    await restarted!.restart();
    const lateLine = await restarted!.waitForLine(
      (l) => l.run === 2 && l.json?.['msg'] === 'job fired' && l.json?.['job'] === 'crash-tick',
      20_000,
      'the restarted scheduler to fire the job',
    );
    const lateFire = Date.parse(String(lateLine.json?.['fireTime']));
    expect(lateLine.json).toMatchObject({ late: true, missedSince: new Date(firstMissed).toISOString() });
    expect(lateFire).toBeGreaterThanOrEqual(firstMissed + 2000);
    // It continues on schedule: two more firings after the late one.
    await fx.stack.waitFor(async () => (await fireTimesOf('crash')).filter((t) => t > lateFire).length >= 2, {
      timeoutMs: 20_000,
      description: 'the job to continue after the late firing',
    });
    const fired = await fireTimesOf('crash');
    expect(fired.filter((t) => t >= firstMissed && t <= lateFire)).toEqual([lateFire]);
    await expectEachFireTimeFiredOnce('crash-tick', 'crash', false);
    const lateFirings = restarted!.lines.filter((l) => l.json?.['msg'] === 'job fired' && l.json?.['job'] === 'crash-tick' && l.json?.['missedSince']);
    expect(lateFirings).toHaveLength(1);
  });
});
