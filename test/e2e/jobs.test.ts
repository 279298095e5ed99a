import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueueNames, type JobExecutionStatusEntry, type JobSpecificationDocument } from '@sas/contracts';
import { findWorkspaceRoot } from '@sas/stack';
import { JobArrivals, redoneFireTimes } from '../support/job-arrivals';
import { SystemFixture } from '../support/system-fixture';
import { fastRoleEnv } from '../support/test-workflows';

/** The runner polls (and renews its lease) this often in these tests. */
const JOBS_POLL_INTERVAL_MS = 200;

describe('persistent job scheduling (real processes, private Redis)', () => {
  let fx: SystemFixture;
  let arrivals: JobArrivals;
  const specDir = mkdtempSync(join(tmpdir(), 'sas-jobs-'));

  beforeAll(async () => {
    const env = fastRoleEnv();
    env['scheduler'] = { ...env['scheduler'], JOBS_POLL_INTERVAL_MS: String(JOBS_POLL_INTERVAL_MS) };
    fx = await SystemFixture.start('jobs', { schedulers: 2, supervisors: 1 }, env);
    arrivals = new JobArrivals(fx.stack.env['REDIS_URL'] ?? '', fx.stack.queuePrefix, QueueNames.submission);
  });
  afterAll(async () => {
    await arrivals?.close();
    await fx?.stop();
  });

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
    // replyTo: the orders' status events reach the fixture's collector, as an application's would.
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

  /**
   * Each fire time of the job fired once, counted where firings arrive: every submission the job
   * sent to the submission queue (see JobArrivals). A second firing of one fire time cannot show
   * anywhere else: it carries the same BullMQ job id and orderId, so BullMQ drops it, and
   * submission would answer it as the first one (not `Duplicate`). Only a firing a killed runner
   * had sent and the next holder redid (logged) may arrive twice. Every order of the job must have
   * arrived as a submission, so the check is not vacuous.
   */
  async function expectEachFireTimeFiredOnce(key: string, triggerIdentifier: string): Promise<void> {
    const doc = await job(key);
    const counts = await arrivals.perFireTime(doc?._id ?? '');
    const redone = redoneFireTimes(fx.system.byRole('scheduler').flatMap((s) => s.lines), key);
    expect([...counts].filter(([t, n]) => n > 1 && !(n === 2 && redone.has(t))).map(([t, n]) => `${new Date(t).toISOString()} arrived ${n} times`)).toEqual([]);
    expect(counts.size).toBeGreaterThan(0);
    expect((await fireTimesOf(triggerIdentifier)).filter((t) => !counts.has(t))).toEqual([]);
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
    // The order's status events reach the application's reply queue.
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
    // The CLI's writes are audited under its own principal; the typed name is what the job's history got.
    const audited = await fx.db.collection('audit_log').findOne({ action: 'job.cancel', target: 'job every-second' });
    expect(audited).toMatchObject({ principal: expect.stringMatching(/^cli:.+@.+$/), address: 'local', route: 'cli sas jobs cancel', outcome: 'ok' });
    expect(audited?.['detail']).toBe("recorded in the job's history as by 'test-operator'");
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

  it('after every scheduler is killed while a job is due, a restarted one fires each missed occurrence, in order and marked late, then continues', async () => {
    createJob(spec('crash-tick', 'crash', { schedulingSpecification: '*/1 * * * * *' }));
    await fx.stack.waitFor(async () => (await fireTimesOf('crash')).length >= 1, { timeoutMs: 20_000, description: 'a first order from the job' });
    const schedulers = fx.system.byRole('scheduler').filter((s) => s.running);
    await Promise.all(schedulers.map((s) => s.kill('SIGKILL')));
    const firstMissed = (await job('crash-tick'))?.nextFireTime?.getTime();
    if (firstMissed === undefined) throw new Error('the job has no next fire time after the kill');
    // Nobody fires while every scheduler is down: wait until three occurrences have passed.
    await fx.stack.waitFor(() => Date.now() > firstMissed + 2000, { timeoutMs: 10_000, description: 'three occurrences to pass' });
    expect((await fireTimesOf('crash')).filter((t) => t >= firstMissed)).toEqual([]);

    const [restarted] = schedulers;
    await restarted!.restart();
    // Down for a few seconds, well within the 60 s misfire threshold: every missed occurrence fires.
    const missed = [firstMissed, firstMissed + 1000, firstMissed + 2000];
    await fx.stack.waitFor(async () => (await fireTimesOf('crash')).filter((t) => t > firstMissed + 2000).length >= 2, {
      timeoutMs: 20_000,
      description: 'the job to catch up and continue',
    });
    const fired = await fireTimesOf('crash');
    expect(fired.filter((t) => t >= firstMissed && t <= firstMissed + 2000)).toEqual(missed);
    // In order, each marked with how late it fired; none collapsed.
    const lines = restarted!.lines.filter((l) => l.run === 2 && l.json?.['msg'] === 'job fired' && l.json?.['job'] === 'crash-tick');
    const firedLines = lines.map((l) => ({ fireTime: Date.parse(String(l.json?.['fireTime'])), late: l.json?.['late'], lateByMs: Number(l.json?.['lateByMs']), missedSince: l.json?.['missedSince'] }));
    expect(firedLines.slice(0, 3).map((l) => l.fireTime)).toEqual(missed);
    for (const l of firedLines.slice(0, 3)) expect(l).toMatchObject({ late: true, missedSince: null });
    expect(firedLines[0]!.lateByMs).toBeGreaterThan(firedLines[2]!.lateByMs);
    await expectEachFireTimeFiredOnce('crash-tick', 'crash');
  });
});
