import type { JobSpecificationDocument } from '@sas/contracts';
import { JobRunner } from './job-runner';
import { JobSpecificationService } from './job-specification-service';
import { InMemoryJobStore } from './in-memory-job-store';
import type { JobOutboxSendOptions } from './job-outbox';
import { jobSpec } from './test-support/job-spec';
import { FakeClock, InMemoryLease, RecordingOutbox, silentLogger } from './test-support/runner-harness';

const RETENTION = 7 * 24 * 3600_000;

/** A store whose due-job query takes `readMs` of the clock, as a loaded machine's does. */
class SlowStore extends InMemoryJobStore {
  readMs = 0;
  constructor(private readonly clock: FakeClock) {
    super();
  }
  override async findDue(now: Date, limit: number): Promise<JobSpecificationDocument[]> {
    this.clock.advance(this.readMs);
    return super.findDue(now, limit);
  }
}

/** An outbox whose every send takes `sendMs` of the clock. */
class SlowOutbox extends RecordingOutbox {
  sendMs = 0;
  constructor(private readonly clock: FakeClock) {
    super();
  }
  override async send(queue: string, message: unknown, options?: JobOutboxSendOptions): Promise<void> {
    await super.send(queue, message, options);
    this.clock.advance(this.sendMs);
  }
}

describe('when the clock moves on between the start of a poll and the send of a firing', () => {
  let clock: FakeClock;
  let store: SlowStore;
  let outbox: SlowOutbox;
  let jobs: JobSpecificationService;
  let ids = 0;

  beforeEach(() => {
    clock = new FakeClock(Date.parse('2024-05-01T09:30:00Z'));
    store = new SlowStore(clock);
    outbox = new SlowOutbox(clock);
    jobs = new JobSpecificationService(store, { clock, retentionMs: RETENTION, newId: () => `job-${++ids}` });
  });

  const runner = (): JobRunner =>
    new JobRunner(store, outbox, clock, new InMemoryLease(), silentLogger, { instanceId: 'scheduler-a', pollIntervalMs: 0, leaseTtlMs: 3000, retentionMs: RETENTION, lateToleranceMs: 2000 });

  async function create(overrides: Record<string, unknown>): Promise<JobSpecificationDocument> {
    const created = await jobs.create(jobSpec(overrides), 'test');
    if (!created.ok) throw new Error(created.message);
    return created.job;
  }

  const firingEntries = async (job: JobSpecificationDocument) => (await store.statusHistory(job._id)).filter((e) => e.fireTime);

  it('measures each firing late from when it is sent: a slow read and the sends before it count', async () => {
    const first = await create({ jobSpecificationKey: 'first', schedulingSpecification: undefined, singleSchedule: '2024-05-01T10:00:00Z' });
    const second = await create({ jobSpecificationKey: 'second', schedulingSpecification: undefined, singleSchedule: '2024-05-01T10:00:00Z' });
    // The poll starts 1.5 s after the instant (not late against 2 s); its read takes 1 s, each send 1 s.
    store.readMs = 1000;
    outbox.sendMs = 1000;
    clock.set('2024-05-01T10:00:01.500Z');
    expect(await runner().poll()).toMatchObject({ fired: 2 });
    // Sent at 10:00:02.500 and 10:00:03.500: both late, by what the clock said at each send.
    const [a, b] = [await firingEntries(first), await firingEntries(second)];
    expect(a.map((e) => [e.executionStatus, e.lateByMs, e.late ?? false, e.updatedTime.toISOString()])).toEqual([['TRIGGERED', 2500, true, '2024-05-01T10:00:02.500Z']]);
    expect(b.map((e) => [e.executionStatus, e.lateByMs, e.late ?? false, e.updatedTime.toISOString()])).toEqual([['TRIGGERED', 3500, true, '2024-05-01T10:00:03.500Z']]);
  });

  it('decides a misfire from when the firing is sent: 3.2 s late against a 3 s threshold misfired, though the poll began within it', async () => {
    const job = await create({ schedulingSpecification: '0 * * * *', misfireThresholdMs: 3000 });
    clock.set('2024-05-01T10:00:02.500Z');
    store.readMs = 700;
    expect(await runner().poll()).toMatchObject({ fired: 1 });
    // fireOnce: it fires, marked as the misfire it is, naming itself as missedSince.
    expect((await firingEntries(job)).map((e) => [e.fireTime?.toISOString(), e.lateByMs, e.late ?? false, e.missedSince?.toISOString()])).toEqual([
      ['2024-05-01T10:00:00.000Z', 3200, true, '2024-05-01T10:00:00.000Z'],
    ]);
  });

  it('skips an occurrence under misfirePolicy skip that is past the threshold by the time it would be sent', async () => {
    const job = await create({ schedulingSpecification: '0 * * * *', misfireThresholdMs: 3000, misfirePolicy: 'skip' });
    clock.set('2024-05-01T10:00:02.500Z');
    store.readMs = 700;
    expect(await runner().poll()).toMatchObject({ fired: 0, skipped: 1 });
    expect(outbox.to('submission')).toEqual([]);
    expect((await store.statusHistory(job._id)).find((e) => e.reason?.startsWith('misfirePolicy'))).toMatchObject({ missedSince: new Date('2024-05-01T10:00:00Z') });
  });
});
