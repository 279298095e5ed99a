import { latestFireTime, nextFireTime } from './fire-times';
import { planFiring, type FiringPlan, type JobTiming } from './plan-firing';

const at = (iso: string): Date => new Date(iso);
const recurring = (expression: string, nextFireTime: string, calendar: JobTiming['calendar'] = null): JobTiming => ({
  schedulingSpecification: expression,
  singleSchedule: null,
  zoneId: 'UTC',
  calendar,
  nextFireTime: at(nextFireTime),
});
const oneOff = (instant: string, calendar: JobTiming['calendar'] = null): JobTiming => ({
  schedulingSpecification: null,
  singleSchedule: at(instant),
  zoneId: 'Europe/Paris',
  calendar,
  nextFireTime: at(instant),
});

describe('planning a firing', () => {
  it('plans nothing before the job is due, or when it has no next fire time', () => {
    expect(planFiring(recurring('0 * * * *', '2024-05-01T10:00:00Z'), at('2024-05-01T09:59:59.999Z'), 2000)).toBeNull();
    expect(planFiring({ ...recurring('0 * * * *', '2024-05-01T10:00:00Z'), nextFireTime: null }, at('2024-05-01T11:00:00Z'), 2000)).toBeNull();
  });

  it('fires a recurring job on time at its occurrence and moves to the next one', () => {
    expect(planFiring(recurring('0 * * * *', '2024-05-01T10:00:00Z'), at('2024-05-01T10:00:00.300Z'), 2000)).toEqual({
      kind: 'fire',
      fireTime: at('2024-05-01T10:00:00Z'),
      nextFireTime: at('2024-05-01T11:00:00Z'),
      late: false,
      lateByMs: 300,
      missedSince: null,
    });
  });

  it('collapses occurrences missed while no scheduler ran into one late firing of the latest', () => {
    expect(planFiring(recurring('0 * * * *', '2024-05-01T10:00:00Z'), at('2024-05-01T13:20:00Z'), 2000)).toEqual({
      kind: 'fire',
      fireTime: at('2024-05-01T13:00:00Z'),
      nextFireTime: at('2024-05-01T14:00:00Z'),
      late: true,
      lateByMs: 3 * 3600_000 + 20 * 60_000,
      missedSince: at('2024-05-01T10:00:00Z'),
    });
  });

  it('does not collapse into an occurrence on an excluded day', () => {
    // Due Friday 09:00, scheduler back on Sunday: Friday's occurrence is the latest allowed one.
    const plan = planFiring(recurring('0 9 * * *', '2024-05-31T09:00:00Z', { excludeWeekends: true }), at('2024-06-02T12:00:00Z'), 2000);
    expect(plan).toMatchObject({ kind: 'fire', fireTime: at('2024-05-31T09:00:00Z'), nextFireTime: at('2024-06-03T09:00:00Z'), late: true, missedSince: null });
  });

  it('records a firing later than the tolerance as late even without missed occurrences', () => {
    expect(planFiring(recurring('0 * * * *', '2024-05-01T10:00:00Z'), at('2024-05-01T10:00:05Z'), 2000)).toMatchObject({ late: true, lateByMs: 5000, missedSince: null });
  });

  it('fires a one-off job once, with no next fire time', () => {
    expect(planFiring(oneOff('2024-05-02T10:00:00.123Z'), at('2024-05-02T10:00:00.500Z'), 2000)).toEqual({
      kind: 'fire',
      fireTime: at('2024-05-02T10:00:00.123Z'),
      nextFireTime: null,
      late: false,
      lateByMs: 377,
      missedSince: null,
    });
  });

  it('fails a one-off job whose instant falls on an excluded day, saying which day', () => {
    expect(planFiring(oneOff('2024-12-24T23:30:00Z', { holidays: ['2024-12-25'] }), at('2024-12-24T23:30:00Z'), 2000)).toEqual({
      kind: 'fail',
      fireTime: at('2024-12-24T23:30:00Z'),
      reason: 'singleSchedule falls on an excluded day: 2024-12-25 is a holiday in Europe/Paris',
      nextFireTime: null,
      late: false,
      lateByMs: 0,
      missedSince: null,
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

describe('planning a firing with one cron evaluation when the runner is on time', () => {
  /** The plan as it was computed before the shortcut: the latest occurrence, then the next one. */
  function reference(job: JobTiming, now: Date, toleranceMs: number): FiringPlan | null {
    const due = job.nextFireTime;
    if (!due || due.getTime() > now.getTime() || job.schedulingSpecification === null) return planFiring(job, now, toleranceMs);
    const schedule = { expression: job.schedulingSpecification, zoneId: job.zoneId, calendar: job.calendar };
    const fireTime = latestFireTime(schedule, now, due) ?? due;
    const missedSince = fireTime.getTime() > due.getTime() ? due : null;
    const lateByMs = now.getTime() - due.getTime();
    return { kind: 'fire', fireTime, nextFireTime: nextFireTime(schedule, now), late: missedSince !== null || lateByMs > toleranceMs, lateByMs, missedSince };
  }

  it('plans exactly what the two evaluations planned, on time, late and across DST and excluded days', () => {
    const rng = seededRandom(20261123);
    const expressions = ['*/5 * * * * *', '0 * * * *', '0 9 * * *', '30 2 * * *', '0 0 29 2 *', '15 10 * * 1-5', '0 */7 * * * *'];
    const zones = ['UTC', 'Europe/Paris', 'America/New_York', 'Australia/Lord_Howe'];
    const calendars: JobTiming['calendar'][] = [null, { excludeWeekends: true }, { holidays: ['2024-03-31', '2024-11-03', '2024-12-25'] }];
    let cases = 0;
    for (let i = 0; i < 400; i++) {
      const schedule = { expression: rng.pick(expressions), zoneId: rng.pick(zones), calendar: rng.pick(calendars) };
      const due = nextFireTime(schedule, new Date(Date.UTC(2024, 0, 1) + rng.int(0, 360) * 86_400_000 + rng.int(0, 86_399_999)));
      if (!due) continue;
      // Mostly on time (within a period), sometimes hours or days late.
      const now = new Date(due.getTime() + rng.pick([0, 1, rng.int(0, 4_000), rng.int(0, 3_600_000), rng.int(0, 5 * 86_400_000)]));
      const job: JobTiming = { schedulingSpecification: schedule.expression, singleSchedule: null, zoneId: schedule.zoneId, calendar: schedule.calendar, nextFireTime: due };
      expect({ i, plan: planFiring(job, now, 2000) }).toEqual({ i, plan: reference(job, now, 2000) });
      cases += 1;
    }
    expect(cases).toBeGreaterThan(300);
  });

  it('still collapses missed occurrences when the next occurrence after the due one has passed', () => {
    const job = recurring('*/5 * * * * *', '2024-05-01T10:00:00Z');
    expect(planFiring(job, at('2024-05-01T10:00:05Z'), 2000)).toMatchObject({ fireTime: at('2024-05-01T10:00:05Z'), missedSince: at('2024-05-01T10:00:00Z'), late: true });
    expect(planFiring(job, at('2024-05-01T10:00:04.999Z'), 2000)).toMatchObject({ fireTime: at('2024-05-01T10:00:00Z'), nextFireTime: at('2024-05-01T10:00:05Z'), missedSince: null });
  });
});
