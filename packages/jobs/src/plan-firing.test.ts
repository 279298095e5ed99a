import { nextFireTime } from './fire-times';
import { planFiring, type FiringRules, type JobTiming } from './plan-firing';

const at = (iso: string): Date => new Date(iso);
/** The runner's defaults in these tests: 2 s lateness tolerance, 60 s misfire threshold. */
const RULES: FiringRules = { lateToleranceMs: 2000, misfireThresholdMs: 60_000 };
const recurring = (expression: string, nextFireTime: string, extra: Partial<JobTiming> = {}): JobTiming => ({
  schedulingSpecification: expression,
  singleSchedule: null,
  zoneId: 'UTC',
  calendar: null,
  nextFireTime: at(nextFireTime),
  ...extra,
});
const oneOff = (instant: string, extra: Partial<JobTiming> = {}): JobTiming => ({
  schedulingSpecification: null,
  singleSchedule: at(instant),
  zoneId: 'Europe/Paris',
  calendar: null,
  nextFireTime: at(instant),
  ...extra,
});

describe('planning a firing', () => {
  it('plans nothing before the job is due, or when it has no next fire time', () => {
    expect(planFiring(recurring('0 * * * *', '2024-05-01T10:00:00Z'), at('2024-05-01T09:59:59.999Z'), RULES)).toBeNull();
    expect(planFiring({ ...recurring('0 * * * *', '2024-05-01T10:00:00Z'), nextFireTime: null }, at('2024-05-01T11:00:00Z'), RULES)).toBeNull();
  });

  it('fires a recurring job on time at its occurrence, says how late against which tolerance, and moves to the next one', () => {
    expect(planFiring(recurring('0 * * * *', '2024-05-01T10:00:00Z'), at('2024-05-01T10:00:00.300Z'), RULES)).toEqual({
      kind: 'fire',
      fireTime: at('2024-05-01T10:00:00Z'),
      nextFireTime: at('2024-05-01T11:00:00Z'),
      late: false,
      lateByMs: 300,
      missedSince: null,
      lateToleranceMs: 2000,
    });
  });

  it('marks a firing late exactly when it is more than the tolerance after its occurrence', () => {
    const job = recurring('0 * * * *', '2024-05-01T10:00:00Z');
    expect(planFiring(job, at('2024-05-01T10:00:02Z'), RULES)).toMatchObject({ late: false, lateByMs: 2000 });
    expect(planFiring(job, at('2024-05-01T10:00:02.001Z'), RULES)).toMatchObject({ late: true, lateByMs: 2001, missedSince: null });
  });

  it('fires an occurrence late by less than the threshold on its own, and moves to the next occurrence even when that is due too', () => {
    // A standby took the lease 5 s after the holder died: the 10:00:00 occurrence is the first to fire.
    expect(planFiring(recurring('* * * * * *', '2024-05-01T10:00:00Z'), at('2024-05-01T10:00:05Z'), RULES)).toEqual({
      kind: 'fire',
      fireTime: at('2024-05-01T10:00:00Z'),
      nextFireTime: at('2024-05-01T10:00:01Z'),
      late: true,
      lateByMs: 5000,
      missedSince: null,
      lateToleranceMs: 2000,
    });
    // Exactly the threshold late is still within it.
    expect(planFiring(recurring('0 * * * *', '2024-05-01T10:00:00Z'), at('2024-05-01T10:01:00Z'), RULES)).toMatchObject({ kind: 'fire', fireTime: at('2024-05-01T10:00:00Z'), missedSince: null });
  });

  it('collapses occurrences later than the threshold into one firing of the latest of them (fireOnce, the default)', () => {
    expect(planFiring(recurring('0 * * * *', '2024-05-01T10:00:00Z'), at('2024-05-01T13:20:00Z'), RULES)).toEqual({
      kind: 'fire',
      fireTime: at('2024-05-01T13:00:00Z'),
      nextFireTime: at('2024-05-01T14:00:00Z'),
      late: true,
      lateByMs: 3 * 3600_000 + 20 * 60_000,
      missedSince: at('2024-05-01T10:00:00Z'),
      lateToleranceMs: 2000,
    });
  });

  it('collapses only the misfired occurrences: those within the threshold come after, each on its own', () => {
    // Back at 10:01:30: 10:00:00-10:00:29 are more than 60 s late, 10:00:30 is exactly 60 s late.
    expect(planFiring(recurring('* * * * * *', '2024-05-01T10:00:00Z'), at('2024-05-01T10:01:30Z'), RULES)).toMatchObject({
      kind: 'fire',
      fireTime: at('2024-05-01T10:00:29Z'),
      nextFireTime: at('2024-05-01T10:00:30Z'),
      missedSince: at('2024-05-01T10:00:00Z'),
      lateByMs: 90_000,
    });
  });

  it('skips misfired occurrences under misfirePolicy skip, moving to the first one within the threshold', () => {
    expect(planFiring(recurring('* * * * * *', '2024-05-01T10:00:00Z', { misfirePolicy: 'skip' }), at('2024-05-01T10:01:30Z'), RULES)).toEqual({
      kind: 'skip',
      missedSince: at('2024-05-01T10:00:00Z'),
      lastSkipped: at('2024-05-01T10:00:29Z'),
      nextFireTime: at('2024-05-01T10:00:30Z'),
      misfireThresholdMs: 60_000,
    });
  });

  it('names a lone misfired occurrence as missedSince when it fires under fireOnce, as a skip of it does', () => {
    // Hourly, back at 11:20 with a 60 s threshold: only 11:00 misfired (12:00 is not due yet).
    const job = recurring('0 * * * *', '2024-05-01T11:00:00Z');
    expect(planFiring(job, at('2024-05-01T11:20:00Z'), RULES)).toEqual({
      kind: 'fire',
      fireTime: at('2024-05-01T11:00:00Z'),
      nextFireTime: at('2024-05-01T12:00:00Z'),
      late: true,
      lateByMs: 20 * 60_000,
      missedSince: at('2024-05-01T11:00:00Z'),
      lateToleranceMs: 2000,
    });
    expect(planFiring({ ...job, misfirePolicy: 'skip' }, at('2024-05-01T11:20:00Z'), RULES)).toMatchObject({ kind: 'skip', missedSince: at('2024-05-01T11:00:00Z'), lastSkipped: at('2024-05-01T11:00:00Z') });
  });

  it("uses the job's own misfire threshold over the runner's", () => {
    const job = recurring('* * * * * *', '2024-05-01T10:00:00Z', { misfireThresholdMs: 3000, misfirePolicy: 'skip' });
    expect(planFiring(job, at('2024-05-01T10:00:05Z'), RULES)).toMatchObject({ kind: 'skip', lastSkipped: at('2024-05-01T10:00:01Z'), nextFireTime: at('2024-05-01T10:00:02Z'), misfireThresholdMs: 3000 });
    expect(planFiring({ ...job, misfireThresholdMs: 10_000 }, at('2024-05-01T10:00:05Z'), RULES)).toMatchObject({ kind: 'fire', fireTime: at('2024-05-01T10:00:00Z') });
  });

  it('does not collapse into an occurrence on an excluded day', () => {
    // Due Friday 09:00, scheduler back on Sunday: Friday's occurrence is the latest allowed one, and misfired alone.
    const plan = planFiring(recurring('0 9 * * *', '2024-05-31T09:00:00Z', { calendar: { excludeWeekends: true } }), at('2024-06-02T12:00:00Z'), RULES);
    expect(plan).toMatchObject({ kind: 'fire', fireTime: at('2024-05-31T09:00:00Z'), nextFireTime: at('2024-06-03T09:00:00Z'), late: true, missedSince: at('2024-05-31T09:00:00Z') });
  });

  it('fires a one-off job once, with no next fire time; late by more than the threshold it still fires under fireOnce', () => {
    expect(planFiring(oneOff('2024-05-02T10:00:00.123Z'), at('2024-05-02T10:00:00.500Z'), RULES)).toEqual({
      kind: 'fire',
      fireTime: at('2024-05-02T10:00:00.123Z'),
      nextFireTime: null,
      late: false,
      lateByMs: 377,
      missedSince: null,
      lateToleranceMs: 2000,
    });
    expect(planFiring(oneOff('2024-05-02T10:00:00Z'), at('2024-05-02T11:00:00Z'), RULES)).toMatchObject({ kind: 'fire', late: true, lateByMs: 3600_000, missedSince: at('2024-05-02T10:00:00Z') });
  });

  it('fails a one-off job that misfired under misfirePolicy skip, saying by how much', () => {
    const job = oneOff('2024-05-02T10:00:00Z', { misfirePolicy: 'skip' });
    expect(planFiring(job, at('2024-05-02T10:00:59Z'), RULES)).toMatchObject({ kind: 'fire' });
    expect(planFiring(job, at('2024-05-02T10:01:01Z'), RULES)).toMatchObject({
      kind: 'fail',
      missedSince: at('2024-05-02T10:00:00Z'),
      reason: "singleSchedule 2024-05-02T10:00:00.000Z was missed by 61000 ms, more than its misfire threshold of 60000 ms, and its misfirePolicy is 'skip'",
    });
  });

  it('fails a one-off job whose instant falls on an excluded day, saying which day', () => {
    expect(planFiring(oneOff('2024-12-24T23:30:00Z', { calendar: { holidays: ['2024-12-25'] } }), at('2024-12-24T23:30:00Z'), RULES)).toEqual({
      kind: 'fail',
      fireTime: at('2024-12-24T23:30:00Z'),
      reason: 'singleSchedule falls on an excluded day: 2024-12-25 is a holiday in Europe/Paris',
      nextFireTime: null,
      late: false,
      lateByMs: 0,
      missedSince: null,
      lateToleranceMs: 2000,
    });
  });
});

/** A small seeded generator (mulberry32), so the cases below are the same on every run. */
function seededRandom(seed: number): { int(min: number, max: number): number; pick<T>(items: readonly T[]): T } {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return { int, pick: (items) => items[int(0, items.length - 1)] as (typeof items)[number] };
}

describe('catching up a job that fell behind, step by step as the runner does', () => {
  /** Applies plans at a fixed `now` until nothing is due, as the runner's rounds do; what fired and where the job ends. */
  function catchUp(job: JobTiming, now: Date): { fired: { at: number; late: boolean; missedSince: number | null }[]; skipped: number; next: number | null } {
    const fired: { at: number; late: boolean; missedSince: number | null }[] = [];
    let skipped = 0;
    let current = job;
    for (let step = 0; step < 20_000; step++) {
      const plan = planFiring(current, now, RULES);
      if (!plan) return { fired, skipped, next: current.nextFireTime?.getTime() ?? null };
      if (plan.kind === 'skip') skipped += 1;
      else fired.push({ at: plan.fireTime.getTime(), late: plan.late, missedSince: plan.missedSince?.getTime() ?? null });
      current = { ...current, nextFireTime: plan.nextFireTime };
    }
    throw new Error('catch-up did not end');
  }

  it('fires every occurrence within the threshold once, in order; misfired ones once (fireOnce) or never (skip)', () => {
    const rng = seededRandom(20261126);
    const expressions = ['*/5 * * * * *', '* * * * * *', '0 * * * *', '0 9 * * *', '30 2 * * *', '15 10 * * 1-5', '0 */7 * * * *'];
    const zones = ['UTC', 'Europe/Paris', 'America/New_York', 'Australia/Lord_Howe'];
    const calendars: JobTiming['calendar'][] = [null, { excludeWeekends: true }, { holidays: ['2024-03-31', '2024-11-03', '2024-12-25'] }];
    let cases = 0;
    let withMisfires = 0;
    for (let i = 0; i < 200; i++) {
      const schedule = { expression: rng.pick(expressions), zoneId: rng.pick(zones), calendar: rng.pick(calendars) };
      const due = nextFireTime(schedule, new Date(Date.UTC(2024, 0, 1) + rng.int(0, 360) * 86_400_000 + rng.int(0, 86_399_999)));
      if (!due) continue;
      const misfireThresholdMs = rng.pick([0, 1000, 60_000, 600_000]);
      const misfirePolicy = rng.pick(['fireOnce', 'skip'] as const);
      const now = new Date(due.getTime() + rng.pick([0, 1, rng.int(0, 4_000), rng.int(0, 120_000), rng.int(0, 3_600_000), rng.int(0, 5 * 86_400_000)]));
      // The reference: every allowed occurrence from `due` to `now`, enumerated one by one.
      const occurrences: number[] = [];
      for (let t: Date | null = due; t && t.getTime() <= now.getTime() && occurrences.length <= 800; t = nextFireTime(schedule, t)) occurrences.push(t.getTime());
      if (occurrences.length > 800) continue;
      const within = occurrences.filter((t) => now.getTime() - t <= misfireThresholdMs);
      const misfired = occurrences.filter((t) => now.getTime() - t > misfireThresholdMs);
      const expected = [...(misfirePolicy === 'fireOnce' && misfired.length > 0 ? [misfired.at(-1) as number] : []), ...within];
      const job: JobTiming = { schedulingSpecification: schedule.expression, singleSchedule: null, zoneId: schedule.zoneId, calendar: schedule.calendar, nextFireTime: due, misfireThresholdMs, misfirePolicy };
      const result = catchUp(job, now);
      const label = { i, ...schedule, due: due.toISOString(), now: now.toISOString(), misfireThresholdMs, misfirePolicy };
      expect({ label, fired: result.fired.map((f) => f.at) }).toEqual({ label, fired: expected });
      expect({ label, skipped: result.skipped }).toEqual({ label, skipped: misfirePolicy === 'skip' && misfired.length > 0 ? 1 : 0 });
      // Late exactly past the tolerance; the firing of misfired occurrences (one or several) names
      // the first of them as missedSince and is measured from it; a firing within the threshold names none.
      for (const f of result.fired) {
        const missedSince = misfired.includes(f.at) ? (misfired[0] as number) : null;
        const from = missedSince ?? f.at;
        expect({ label, at: f.at, late: f.late, missedSince: f.missedSince }).toEqual({ label, at: f.at, late: now.getTime() - from > RULES.lateToleranceMs, missedSince });
      }
      expect({ label, next: result.next }).toEqual({ label, next: nextFireTime(schedule, now)?.getTime() ?? null });
      cases += 1;
      if (misfired.length > 0) withMisfires += 1;
    }
    expect(cases).toBeGreaterThan(120);
    expect(withMisfires).toBeGreaterThan(40);
  });
});
