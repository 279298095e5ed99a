import type { JobSpecificationDocument } from '@sas/contracts';
import { pino } from 'pino';
import { JobRunner, type JobRunnerOptions } from './job-runner';
import { JobSpecificationService } from './job-specification-service';
import type { JobLease } from './job-lease';
import { InMemoryJobStore } from './in-memory-job-store';
import { jobSpec } from './test-support/job-spec';
import { FakeClock, InMemoryLease, RecordingOutbox, everyoneLeads, silentLogger } from './test-support/runner-harness';

const HOUR = 3600_000;
const RETENTION = 7 * 24 * HOUR;

describe('the job runner (in-memory store, fake clock)', () => {
  let clock: FakeClock;
  let store: InMemoryJobStore;
  let outbox: RecordingOutbox;
  let jobs: JobSpecificationService;
  let ids = 0;

  beforeEach(() => {
    clock = new FakeClock(Date.parse('2024-05-01T09:30:00Z'));
    store = new InMemoryJobStore();
    outbox = new RecordingOutbox();
    jobs = new JobSpecificationService(store, { clock, retentionMs: RETENTION, newId: () => `job-${++ids}` });
  });

  function runner(instanceId: string, lease: JobLease = new InMemoryLease(), extra: Partial<JobRunnerOptions> = {}): JobRunner {
    return new JobRunner(store, outbox, clock, lease, silentLogger, { instanceId, pollIntervalMs: 0, leaseTtlMs: 3000, retentionMs: RETENTION, lateToleranceMs: 2000, ...extra });
  }

  async function create(overrides: Record<string, unknown> = {}): Promise<JobSpecificationDocument> {
    const created = await jobs.create(jobSpec(overrides), 'test');
    if (!created.ok) throw new Error(created.message);
    return created.job;
  }

  const orderIds = (): string[] => outbox.to('submission').map((m) => String(m.message['orderId']));
  const history = async (key: string): Promise<string[]> => ((await jobs.show(key))?.history ?? []).map((e) => e.executionStatus);

  it('fires each occurrence exactly once across two runners sharing one store, even when both think they lead', async () => {
    await create({ schedulingSpecification: '*/10 * * * * *' });
    const [a, b] = [runner('scheduler-a', everyoneLeads), runner('scheduler-b', everyoneLeads)];
    for (let i = 0; i < 5; i++) {
      clock.advance(10_000);
      await Promise.all([a.poll(), b.poll()]);
    }
    expect(orderIds()).toEqual(['09:30:10', '09:30:20', '09:30:30', '09:30:40', '09:30:50'].map((t) => `nightly@2024-05-01T${t}.000Z`));
    // The race really happened: the losing runner's claims were refused by the revision check.
    expect((a.metrics()['lost'] ?? 0) + (b.metrics()['lost'] ?? 0)).toBeGreaterThan(0);
  });

  it('lets only the lease holder fire, and a standby take over once the dead holder lease expires', async () => {
    await create({ schedulingSpecification: '0 * * * *' });
    const lease = new InMemoryLease();
    const [a, b] = [runner('scheduler-a', lease), runner('scheduler-b', lease)];
    clock.set('2024-05-01T10:00:00.100Z');
    expect((await a.poll()).fired).toBe(1);
    expect(await b.poll()).toEqual({ leader: false, fired: 0, failed: 0, redone: 0, retrying: 0, skipped: 0 });
    // a dies without releasing the lease; hours pass.
    clock.set('2024-05-01T13:20:00Z');
    expect((await b.poll()).leader).toBe(true);
    expect(orderIds()).toEqual(['nightly@2024-05-01T10:00:00.000Z', 'nightly@2024-05-01T13:00:00.000Z']);
  });

  it('fires in one poll, in order, each occurrence that fell due while a standby waited out a dead holder lease', async () => {
    clock.set('2024-05-01T09:59:59.500Z');
    const job = await create({ schedulingSpecification: '* * * * * *' });
    const lease = new InMemoryLease();
    const [a, b] = [runner('scheduler-a', lease), runner('scheduler-b', lease)];
    clock.set('2024-05-01T10:00:00.100Z');
    await a.poll();
    // a is killed; b takes over once the lease (3 s) has expired: at its poll 4.5 s later.
    clock.set('2024-05-01T10:00:04.600Z');
    expect(await b.poll()).toMatchObject({ leader: true, fired: 4 });
    expect(orderIds().slice(-4)).toEqual(['01', '02', '03', '04'].map((s) => `nightly@2024-05-01T10:00:${s}.000Z`));
    const entries = (await store.statusHistory(job._id)).filter((e) => e.fireTime && e.fireTime.getTime() > Date.parse('2024-05-01T10:00:00.500Z'));
    // Each is marked with how late it fired; `late` exactly past the 2 s tolerance, which the entry states.
    expect(entries.map((e) => [e.fireTime?.toISOString().slice(17, 19), e.lateByMs, e.late ?? false, e.lateToleranceMs, e.missedSince ?? null])).toEqual([
      ['01', 3600, true, 2000, null],
      ['02', 2600, true, 2000, null],
      ['03', 1600, false, 2000, null],
      ['04', 600, false, 2000, null],
    ]);
  });

  it('skips occurrences later than the threshold under misfirePolicy skip, records which, then fires on time', async () => {
    const job = await create({ schedulingSpecification: '0 * * * *', misfirePolicy: 'skip' });
    const r = runner('scheduler-a');
    clock.set('2024-05-01T10:00:00.100Z');
    await r.poll();
    clock.set('2024-05-01T13:20:00Z');
    expect(await r.poll()).toMatchObject({ fired: 0, skipped: 1 });
    clock.set('2024-05-01T14:00:00.200Z');
    await r.poll();
    expect(orderIds()).toEqual(['10:00:00', '14:00:00'].map((t) => `nightly@2024-05-01T${t}.000Z`));
    const skip = (await store.statusHistory(job._id)).find((e) => e.reason?.startsWith('misfirePolicy'));
    expect(skip).toMatchObject({
      executionStatus: 'SCHEDULED',
      missedSince: new Date('2024-05-01T11:00:00Z'),
      nextFireTime: new Date('2024-05-01T14:00:00Z'),
      reason: "misfirePolicy 'skip': the occurrences from 2024-05-01T11:00:00.000Z to 2024-05-01T13:00:00.000Z were more than 60000 ms late and did not fire",
    });
    expect(r.metrics()['skipped']).toBe(1);
  });

  it('gives the lease up on close, so a standby fires the next occurrence at its next poll', async () => {
    clock.set('2024-05-01T09:59:59.500Z');
    await create({ schedulingSpecification: '* * * * * *' });
    const lease = new InMemoryLease();
    const [a, b] = [runner('scheduler-a', lease), runner('scheduler-b', lease)];
    clock.set('2024-05-01T10:00:00.100Z');
    expect((await a.poll()).leader).toBe(true);
    expect((await b.poll()).leader).toBe(false);
    await a.close();
    clock.set('2024-05-01T10:00:01.100Z');
    expect(await b.poll()).toMatchObject({ leader: true, fired: 1 });
    expect(orderIds()).toEqual(['00', '01'].map((s) => `nightly@2024-05-01T10:00:${s}.000Z`));
  });

  it('collapses occurrences missed while no runner ran into one late firing, then continues on time', async () => {
    const job = await create({ schedulingSpecification: '0 * * * *' });
    clock.set('2024-05-01T10:00:00.100Z');
    await runner('scheduler-a').poll();
    clock.set('2024-05-01T13:20:00Z');
    const restarted = runner('scheduler-a');
    expect((await restarted.poll()).fired).toBe(1);
    clock.set('2024-05-01T14:00:00.200Z');
    await restarted.poll();
    expect(orderIds()).toEqual(['10:00:00', '13:00:00', '14:00:00'].map((t) => `nightly@2024-05-01T${t}.000Z`));
    const entries = (await store.statusHistory(job._id)).filter((e) => e.fireTime);
    expect(entries.map((e) => [e.fireTime?.toISOString(), e.late ?? false])).toEqual([
      ['2024-05-01T10:00:00.000Z', false],
      ['2024-05-01T13:00:00.000Z', true],
      ['2024-05-01T14:00:00.000Z', false],
    ]);
    expect(entries[1]).toMatchObject({ lateByMs: 2 * HOUR + 20 * 60_000, missedSince: new Date('2024-05-01T11:00:00Z') });
  });

  it('keeps every status entry of a still-scheduled recurring job (FAILED ones included) without a deleteTime', async () => {
    const job = await create({ schedulingSpecification: '0 * * * *' });
    const r = runner('scheduler-a');
    clock.set('2024-05-01T10:00:00Z');
    await r.poll();
    outbox.refusing.add('submission');
    clock.set('2024-05-01T11:00:00Z');
    await r.poll();
    outbox.refusing.clear();
    clock.set('2024-05-01T12:00:00Z');
    await r.poll();
    const entries = await store.statusHistory(job._id);
    expect(entries.map((e) => [e.executionStatus, e.fireTime?.toISOString() ?? null, e.deleteTime])).toEqual([
      ['SCHEDULED', null, null],
      ['SCHEDULED', '2024-05-01T10:00:00.000Z', null],
      ['FAILED', '2024-05-01T11:00:00.000Z', null],
      ['SCHEDULED', '2024-05-01T11:00:00.000Z', null],
      ['SCHEDULED', '2024-05-01T12:00:00.000Z', null],
    ]);
    expect(entries.at(-1)?.nextFireTime).toEqual(new Date('2024-05-01T13:00:00Z'));
  });

  it('gives every status entry of a finished one-off job the job deleteTime', async () => {
    const job = await create({ schedulingSpecification: undefined, singleSchedule: '2024-05-01T09:30:01.250Z' });
    clock.set('2024-05-01T09:30:01.300Z');
    await runner('scheduler-a').poll();
    const finished = await store.getByKey('nightly-report');
    expect(finished?.deleteTime).toEqual(new Date(Date.parse('2024-05-01T09:30:01.300Z') + RETENTION));
    const entries = await store.statusHistory(job._id);
    expect(entries.map((e) => [e.executionStatus, e.deleteTime])).toEqual([
      ['SCHEDULED', finished?.deleteTime],
      ['TRIGGERED', finished?.deleteTime],
    ]);
  });

  it('fires a one-off job once, marks it TRIGGERED and gives it a deleteTime', async () => {
    await create({ schedulingSpecification: undefined, singleSchedule: '2024-05-01T09:30:01.250Z' });
    const r = runner('scheduler-a');
    clock.set('2024-05-01T09:30:01.300Z');
    await r.poll();
    clock.advance(60_000);
    await r.poll();
    expect(orderIds()).toEqual(['nightly@2024-05-01T09:30:01.250Z']);
    const shown = await jobs.show('nightly-report');
    expect(shown?.current?.executionStatus).toBe('TRIGGERED');
    expect(shown?.job).toMatchObject({ status: 'TRIGGERED', nextFireTime: null, inFlight: null, deleteTime: new Date(Date.parse('2024-05-01T09:30:01.300Z') + RETENTION) });
    expect(await jobs.list()).toEqual([]);
  });

  it('keeps a one-off firing in flight when the trigger send fails transiently, and sends it after a backoff', async () => {
    await create({ schedulingSpecification: undefined, singleSchedule: '2024-05-01T09:30:01.000Z' });
    const r = runner('scheduler-a');
    outbox.failing.add('submission');
    clock.set('2024-05-01T09:30:02Z');
    expect(await r.poll()).toMatchObject({ fired: 0, failed: 0 });
    expect((await jobs.show('nightly-report'))?.job).toMatchObject({ status: 'SCHEDULED', inFlight: expect.objectContaining({ attempts: 1 }) });
    expect(await history('nightly-report')).toEqual(['SCHEDULED']);
    expect(outbox.to('reporting.failures')).toEqual([]);
    // Not a hot loop: a poll before the backoff (1 s after the first failure) does not try again.
    outbox.failing.clear();
    clock.set('2024-05-01T09:30:02.500Z');
    await r.poll();
    expect(outbox.attempts).toHaveLength(1);
    // Not only after the in-flight timeout (3 s here) either: the retry comes after the 1 s backoff.
    clock.set('2024-05-01T09:30:03Z');
    expect((await r.poll()).fired).toBe(1);
    expect(orderIds()).toEqual(['nightly@2024-05-01T09:30:01.000Z']);
    const shown = await jobs.show('nightly-report');
    expect(shown?.current?.executionStatus).toBe('TRIGGERED');
    expect(shown?.job).toMatchObject({ status: 'TRIGGERED', inFlight: null });
    expect(await history('nightly-report')).toEqual(['SCHEDULED', 'TRIGGERED']);
  });

  it('backs off exponentially between retries and records FAILED with the failure command once maxFiringAttempts sends failed', async () => {
    await create({ schedulingSpecification: undefined, singleSchedule: '2024-05-01T09:30:01.000Z' });
    const r = runner('scheduler-a', new InMemoryLease(), { maxFiringAttempts: 4, retryDelayMs: 1000, maxRetryDelayMs: 3000 });
    outbox.failing.add('submission');
    clock.set('2024-05-01T09:30:01Z');
    const triesAt: string[] = [];
    for (let i = 0; i < 100 && (await store.getByKey('nightly-report'))?.status === 'SCHEDULED'; i++) {
      const before = outbox.attempts.length;
      await r.poll();
      if (outbox.attempts.length > before) triesAt.push(new Date(clock.now()).toISOString().slice(11, 19));
      clock.advance(500);
    }
    // Delays 1 s, 2 s, then capped at 3 s.
    expect(triesAt).toEqual(['09:30:01', '09:30:02', '09:30:04', '09:30:07']);
    expect(outbox.to('reporting.failures').map((m) => m.message)).toEqual([
      {
        schemaVersion: 1,
        jobSpecificationKey: 'nightly-report',
        failureIdentifier: 'nightly-failed',
        fireTime: Date.parse('2024-05-01T09:30:01.000Z'),
        reason: "could not send the trigger to queue 'submission' in 4 attempts; last error: queue submission is unavailable",
        command: { alert: 'nightly report did not start' },
      },
    ]);
    const shown = await jobs.show('nightly-report');
    expect(shown?.current).toMatchObject({ executionStatus: 'FAILED', reason: expect.stringMatching(/in 4 attempts/) });
    expect(shown?.job).toMatchObject({ status: 'FAILED', inFlight: null });
    expect(shown?.job.deleteTime).not.toBeNull();
  });

  it('records FAILED at once, with the failure command, when the outbox refuses the trigger for good (PermanentError)', async () => {
    await create({ schedulingSpecification: undefined, singleSchedule: '2024-05-01T09:30:01.000Z' });
    outbox.refusing.add('submission');
    clock.set('2024-05-01T09:30:02Z');
    expect((await runner('scheduler-a').poll()).failed).toBe(1);
    expect(outbox.to('reporting.failures').map((m) => m.message['reason'])).toEqual([
      "could not send the trigger to queue 'submission': queue submission refuses this message",
    ]);
    expect((await jobs.show('nightly-report'))?.job).toMatchObject({ status: 'FAILED', inFlight: null });
  });

  it('retries the same occurrence of a recurring job after a transient send failure, and fails it only when refused', async () => {
    await create({ schedulingSpecification: '0 * * * *' });
    const r = runner('scheduler-a');
    outbox.failing.add('submission');
    clock.set('2024-05-01T10:00:00Z');
    await r.poll();
    outbox.failing.clear();
    clock.set('2024-05-01T10:00:01Z');
    await r.poll();
    expect(orderIds()).toEqual(['nightly@2024-05-01T10:00:00.000Z']);
    outbox.refusing.add('submission');
    clock.set('2024-05-01T11:00:00Z');
    await r.poll();
    expect(await history('nightly-report')).toEqual(['SCHEDULED', 'SCHEDULED', 'FAILED', 'SCHEDULED']);
    expect((await jobs.show('nightly-report'))?.current).toMatchObject({ executionStatus: 'SCHEDULED', nextFireTime: new Date('2024-05-01T12:00:00Z') });
  });

  it('logs at error with the job key when even the failure command cannot be sent', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (s: string) => lines.push(JSON.parse(s) as Record<string, unknown>) });
    await create({ schedulingSpecification: undefined, singleSchedule: '2024-05-01T09:30:01.000Z' });
    outbox.refusing.add('submission');
    outbox.refusing.add('reporting.failures');
    clock.set('2024-05-01T09:30:02Z');
    await new JobRunner(store, outbox, clock, new InMemoryLease(), logger, { instanceId: 'a', pollIntervalMs: 0 }).poll();
    const errors = lines.filter((l) => l['level'] === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ job: 'nightly-report', queue: 'reporting.failures' });
    expect(String(errors[0]?.['msg'])).toMatch(/could not send the failure command of job 'nightly-report'/);
    expect((await jobs.show('nightly-report'))?.job.status).toBe('FAILED');
  });

  it('fails a one-off job on an excluded day and sends the failure command instead of the trigger', async () => {
    await create({ schedulingSpecification: undefined, singleSchedule: '2024-06-01T10:00:00.000Z', calendar: { excludeWeekends: true } });
    clock.set('2024-06-01T10:00:00.500Z');
    await runner('scheduler-a').poll();
    expect(outbox.to('submission')).toEqual([]);
    expect(outbox.to('reporting.failures')[0]?.message['reason']).toBe(
      'singleSchedule falls on an excluded day: 2024-06-01 is a Saturday in UTC and the calendar excludes weekends',
    );
    expect((await jobs.show('nightly-report'))?.current?.executionStatus).toBe('FAILED');
  });

  it('never fires a canceled job', async () => {
    await create({ schedulingSpecification: '*/1 * * * * *' });
    const canceled = await jobs.cancel('nightly-report', 'operator');
    expect(canceled.ok).toBe(true);
    const r = runner('scheduler-a');
    for (let i = 0; i < 3; i++) {
      clock.advance(1000);
      await r.poll();
    }
    expect(outbox.sent).toEqual([]);
    const shown = await jobs.show('nightly-report');
    expect(shown?.current).toMatchObject({ executionStatus: 'CANCELED', reason: 'canceled by operator' });
    expect(shown?.history.every((e) => e.deleteTime !== null)).toBe(true);
  });

  it('redoes a firing whose runner died between claiming and settling it, with the same orderId', async () => {
    const job = await create({ schedulingSpecification: '0 * * * *' });
    const claimedAt = new Date('2024-05-01T10:00:00Z');
    store.put({
      ...job,
      revision: job.revision + 1,
      nextFireTime: new Date('2024-05-01T11:00:00Z'),
      lastFireTime: claimedAt,
      inFlight: { fireTime: claimedAt, by: 'scheduler-dead', claimedAt, late: false, lateByMs: 0, missedSince: null },
    });
    clock.set('2024-05-01T10:00:01Z');
    const r = runner('scheduler-a', new InMemoryLease(), { inFlightTimeoutMs: 3000 });
    expect((await r.poll()).redone).toBe(0);
    clock.set('2024-05-01T10:00:04Z');
    expect((await r.poll()).redone).toBe(1);
    expect(orderIds()).toEqual(['nightly@2024-05-01T10:00:00.000Z']);
    expect((await store.getByKey('nightly-report'))?.inFlight).toBeNull();
  });
});
