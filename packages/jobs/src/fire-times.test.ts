import { checkCronExpression } from './cron-occurrences';
import { excludedDayReason } from './excluded-day';
import { latestFireTime, nextFireTime, type RecurringSchedule } from './fire-times';
import { localDay } from './local-day';

const at = (iso: string): Date => new Date(iso);
const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
const schedule = (expression: string, zoneId = 'UTC', calendar: RecurringSchedule['calendar'] = null): RecurringSchedule => ({ expression, zoneId, calendar });

/** The next `n` fire times after `from`. */
function fireTimes(s: RecurringSchedule, from: string, n: number): string[] {
  const out: string[] = [];
  let t: Date | null = at(from);
  for (let i = 0; i < n && t; i++) {
    t = nextFireTime(s, t);
    if (t) out.push(t.toISOString());
  }
  return out;
}

describe('next fire time', () => {
  describe('in Europe/Paris across daylight-saving transitions', () => {
    it('fires a 02:30 job once at 03:30 CEST on the spring-forward day, when 02:30 does not exist', () => {
      expect(fireTimes(schedule('30 2 * * *', 'Europe/Paris'), '2024-03-30T12:00:00Z', 3)).toEqual([
        '2024-03-31T01:30:00.000Z',
        '2024-04-01T00:30:00.000Z',
        '2024-04-02T00:30:00.000Z',
      ]);
    });

    it('fires a 02:30 job once on the fall-back day, although 02:30 happens twice', () => {
      expect(fireTimes(schedule('30 2 * * *', 'Europe/Paris'), '2024-10-26T12:00:00Z', 3)).toEqual([
        '2024-10-27T00:30:00.000Z',
        '2024-10-28T01:30:00.000Z',
        '2024-10-29T01:30:00.000Z',
      ]);
    });

    it('keeps an hourly job one real hour apart through the repeated hour', () => {
      expect(fireTimes(schedule('0 * * * *', 'Europe/Paris'), '2024-10-26T23:30:00Z', 4)).toEqual([
        '2024-10-27T00:00:00.000Z',
        '2024-10-27T01:00:00.000Z',
        '2024-10-27T02:00:00.000Z',
        '2024-10-27T03:00:00.000Z',
      ]);
    });

    it('reads 09:00 as local time: 08:00Z in winter, 07:00Z in summer', () => {
      expect(iso(nextFireTime(schedule('0 9 * * *', 'Europe/Paris'), at('2024-01-15T00:00:00Z')))).toBe('2024-01-15T08:00:00.000Z');
      expect(iso(nextFireTime(schedule('0 9 * * *', 'Europe/Paris'), at('2024-07-15T00:00:00Z')))).toBe('2024-07-15T07:00:00.000Z');
    });
  });

  it('finds the 29th of February only in leap years', () => {
    expect(fireTimes(schedule('0 12 29 2 *'), '2023-01-01T00:00:00Z', 2)).toEqual(['2024-02-29T12:00:00.000Z', '2028-02-29T12:00:00.000Z']);
  });

  it('reads a 6-field expression with seconds first', () => {
    expect(fireTimes(schedule('*/15 * * * * *'), '2024-05-01T10:00:07.250Z', 3)).toEqual([
      '2024-05-01T10:00:15.000Z',
      '2024-05-01T10:00:30.000Z',
      '2024-05-01T10:00:45.000Z',
    ]);
  });

  it('is strictly after the given instant, even when that instant is an occurrence', () => {
    expect(iso(nextFireTime(schedule('0 2 * * *'), at('2024-05-01T02:00:00.000Z')))).toBe('2024-05-02T02:00:00.000Z');
  });

  describe('with a calendar', () => {
    it('moves a weekday-agnostic job past the weekend when weekends are excluded', () => {
      // 2024-06-01 is a Saturday.
      expect(fireTimes(schedule('0 9 * * *', 'UTC', { excludeWeekends: true }), '2024-05-31T10:00:00Z', 2)).toEqual([
        '2024-06-03T09:00:00.000Z',
        '2024-06-04T09:00:00.000Z',
      ]);
    });

    it('skips holidays, read as days in the job zone', () => {
      const s = schedule('0 0 * * *', 'Europe/Paris', { holidays: ['2024-12-25', '2024-12-26'] });
      // Midnight in Paris on the 25th is 23:00Z on the 24th: the holiday is the Paris day.
      expect(fireTimes(s, '2024-12-24T00:00:00Z', 2)).toEqual(['2024-12-26T23:00:00.000Z', '2024-12-27T23:00:00.000Z']);
    });

    it('steps over a weekend of a per-second job a day at a time, landing on Monday at midnight', () => {
      const s = schedule('* * * * * *', 'UTC', { excludeWeekends: true });
      expect(iso(nextFireTime(s, at('2024-05-31T23:59:59.000Z')))).toBe('2024-06-03T00:00:00.000Z');
    });

    it('returns null for a job whose cron only matches excluded days', () => {
      expect(nextFireTime(schedule('0 9 * * 0,6', 'UTC', { excludeWeekends: true }), at('2024-05-01T00:00:00Z'))).toBeNull();
    });
  });
});

describe('latest fire time in a window', () => {
  it('is the last occurrence at or before the end of the window', () => {
    const s = schedule('*/10 * * * * *');
    expect(iso(latestFireTime(s, at('2024-05-01T10:00:35.500Z'), at('2024-05-01T10:00:00Z')))).toBe('2024-05-01T10:00:30.000Z');
    expect(iso(latestFireTime(s, at('2024-05-01T10:00:30.000Z'), at('2024-05-01T10:00:00Z')))).toBe('2024-05-01T10:00:30.000Z');
  });

  it('skips back over excluded days', () => {
    const s = schedule('0 9 * * *', 'UTC', { excludeWeekends: true });
    expect(iso(latestFireTime(s, at('2024-06-02T12:00:00Z'), at('2024-05-01T00:00:00Z')))).toBe('2024-05-31T09:00:00.000Z');
  });

  it('is null when no allowed occurrence lies inside the window', () => {
    const s = schedule('0 9 * * *', 'UTC', { excludeWeekends: true });
    expect(latestFireTime(s, at('2024-06-02T12:00:00Z'), at('2024-06-01T00:00:00Z'))).toBeNull();
  });
});

describe('cron expression check', () => {
  it('accepts 5 and 6 fields', () => {
    expect(checkCronExpression('0 2 * * 1-5', 'UTC')).toEqual({ ok: true });
    expect(checkCronExpression('*/1 * * * * *', 'UTC')).toEqual({ ok: true });
  });

  it('refuses another number of fields, naming the count and the expected forms', () => {
    const result = checkCronExpression('@daily', 'UTC');
    expect(result).toEqual({ ok: false, message: expect.stringMatching(/'@daily' has 1 field\(s\); write 5 \(minute hour day-of-month month day-of-week\) or 6 \(second first\)/) });
    expect(checkCronExpression('0 0 0 1 1 * 2030', 'UTC').ok).toBe(false);
  });

  it('refuses values out of range with the parser reason', () => {
    expect(checkCronExpression('61 * * * *', 'UTC')).toEqual({
      ok: false,
      message: "schedulingSpecification '61 * * * *' is not a valid cron expression: Constraint error, got value 61 expected range 0-59",
    });
  });
});

describe('excluded days', () => {
  it('reads the day in the job zone: late Friday in New York is Saturday in UTC', () => {
    const instant = at('2024-06-01T02:00:00Z');
    expect(localDay(instant, 'America/New_York')).toEqual({ date: '2024-05-31', weekday: 5 });
    expect(excludedDayReason({ excludeWeekends: true }, instant, 'America/New_York')).toBeNull();
    expect(excludedDayReason({ excludeWeekends: true }, instant, 'UTC')).toBe('2024-06-01 is a Saturday in UTC and the calendar excludes weekends');
  });

  it('names the holiday', () => {
    expect(excludedDayReason({ holidays: ['2024-05-01'] }, at('2024-05-01T10:00:00Z'), 'Europe/Paris')).toBe('2024-05-01 is a holiday in Europe/Paris');
    expect(excludedDayReason(null, at('2024-05-01T10:00:00Z'), 'Europe/Paris')).toBeNull();
  });
});
