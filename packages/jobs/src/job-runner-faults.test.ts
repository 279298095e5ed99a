import type { JobSpecificationDocument } from '@sas/contracts';
import { FaultInjector, ManualClock } from '@sas/testkit';
import { JobRunner } from './job-runner';
import { JobSpecificationService } from './job-specification-service';
import type { JobStore } from './job-store';
import type { JobOutbox } from './job-outbox';
import { InMemoryJobStore } from './in-memory-job-store';
import { jobSpec } from './test-support/job-spec';
import { InMemoryLease, RecordingOutbox, silentLogger } from './test-support/runner-harness';

const T = Date.parse('2024-05-01T09:30:00Z');
const RETENTION = 7 * 24 * 3600_000;
/** The runner polls once a second, as it does by default; the schedule runs to T+29 s. */
const LAST_POLL_S = 29;

interface Scenario {
  name: string;
  spec: Record<string, unknown>;
  /** A clean run has made every call of its firings by this poll; faults are swept over those calls. */
  firingsDoneByS: number;
  fireTimes: number[];
  history: string[];
  status: string;
}

const scenarios: Scenario[] = [
  {
    name: 'a one-off job',
    spec: { schedulingSpecification: undefined, singleSchedule: new Date(T + 5000).toISOString() },
    firingsDoneByS: 6,
    fireTimes: [T + 5000],
    history: ['SCHEDULED', 'TRIGGERED'],
    status: 'TRIGGERED',
  },
  {
    name: 'a recurring job',
    // Every 10 s: fires at T+10 s and T+20 s, and not again before the last poll.
    spec: { schedulingSpecification: '*/10 * * * * *' },
    firingsDoneByS: 21,
    fireTimes: [T + 10_000, T + 20_000],
    history: ['SCHEDULED', 'SCHEDULED', 'SCHEDULED'],
    status: 'SCHEDULED',
  },
];

interface Run {
  store: InMemoryJobStore;
  outbox: RecordingOutbox;
  faults: FaultInjector;
  job: JobSpecificationDocument;
  runner: JobRunner;
  clock: ManualClock;
}

async function setUp(scenario: Scenario, afterwards: boolean): Promise<Run> {
  const clock = new ManualClock(T);
  const store = new InMemoryJobStore();
  const outbox = new RecordingOutbox();
  const created = await new JobSpecificationService(store, { clock, retentionMs: RETENTION, newId: () => 'job-1' }).create(jobSpec(scenario.spec), 'test');
  if (!created.ok) throw new Error(created.message);
  const faults = new FaultInjector();
  const runner = new JobRunner(
    faults.wrap<JobStore>(store, { afterwards }),
    faults.wrap<JobOutbox>(outbox, { afterwards }),
    clock,
    new InMemoryLease(),
    silentLogger,
    { instanceId: 'scheduler-a', pollIntervalMs: 0, leaseTtlMs: 3000, retentionMs: RETENTION, lateToleranceMs: 2000 },
  );
  return { store, outbox, faults, job: created.job, runner, clock };
}

async function pollEachSecond(run: Run, untilS: number): Promise<void> {
  for (let s = 1; s <= untilS; s++) {
    run.clock.t = T + s * 1000;
    await run.runner.poll();
  }
}

/** Fire times (ms) of every trigger the outbox received, duplicates included (Redis would drop them by jobId). */
const rawFireTimes = (outbox: RecordingOutbox): number[] => outbox.to('submission').map((m) => Number(m.jobId?.split('.').at(-1)));

describe.each(scenarios)('the job runner, for $name, when any one store or outbox call fails once', (scenario) => {
  let cleanCalls = 0;

  beforeAll(async () => {
    const clean = await setUp(scenario, false);
    await pollEachSecond(clean, scenario.firingsDoneByS);
    cleanCalls = clean.faults.calls.length;
    expect(rawFireTimes(clean.outbox)).toEqual(scenario.fireTimes);
  });

  it('counts the calls of a clean run (the sweep below covers each)', () => {
    // Two queries per poll plus claim, send, append and settle per firing (and the expiry of a finishing one).
    expect(cleanCalls).toBeGreaterThan(2 * scenario.firingsDoneByS);
  });

  describe.each([
    ['before it takes effect', false],
    ['after it took effect (the answer is lost)', true],
  ])('%s', (_label, afterwards) => {
    it('sends each fire time, misses none, records consistent statuses and leaves nothing in flight', async () => {
      const problems: string[] = [];
      for (let n = 1; n <= cleanCalls; n++) {
        const run = await setUp(scenario, afterwards);
        run.faults.failOnce(n);
        await pollEachSecond(run, LAST_POLL_S);
        run.faults.heal();
        const failed = run.faults.calls[n - 1]?.method ?? '?';
        const raw = rawFireTimes(run.outbox);
        const distinct = [...new Set(raw)].sort((a, b) => a - b);
        const job = await run.store.getByKey('nightly-report');
        const history = await run.store.statusHistory(run.job._id);
        const found = {
          distinct,
          // At most one extra raw send per injected fault (Redis drops it by jobId).
          resent: raw.length - distinct.length > 1,
          history: history.map((e) => e.executionStatus),
          status: job?.status,
          inFlight: job?.inFlight ?? null,
          deleteTimes: [...new Set(history.map((e) => e.deleteTime?.getTime() ?? null))],
        };
        const expected = {
          distinct: scenario.fireTimes,
          resent: false,
          history: scenario.history,
          status: scenario.status,
          inFlight: null,
          // History lives as long as its job: a finished job's entries all get its deleteTime, a scheduled one's none.
          deleteTimes: [job?.deleteTime?.getTime() ?? null],
        };
        try {
          expect(found).toEqual(expected);
        } catch {
          problems.push(`call ${n} (${failed}) failing: ${JSON.stringify(found)}`);
        }
      }
      expect(problems).toEqual([]);
    });
  });
});
