import { planFiring, type JobTiming } from './plan-firing';

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
