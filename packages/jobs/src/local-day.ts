/** A calendar day as seen in one time zone. */
export interface LocalDay {
  /** `YYYY-MM-DD` in the zone. */
  date: string;
  /** 0 = Sunday … 6 = Saturday, as in cron. */
  weekday: number;
}

const WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

// Building an Intl formatter is costly; a job's zone is looked up at every fire time, so keep one per zone.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zoneId: string): Intl.DateTimeFormat {
  let f = formatters.get(zoneId);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zoneId,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      weekday: 'short',
    });
    formatters.set(zoneId, f);
  }
  return f;
}

/**
 * The day an instant falls on in `zoneId`. Calendars (weekends, holidays) are written in the
 * job's zone, so "is 23:30 UTC on Friday a weekend?" depends on where the job lives.
 */
export function localDay(instant: Date, zoneId: string): LocalDay {
  const parts: Record<string, string> = {};
  for (const p of formatterFor(zoneId).formatToParts(instant)) parts[p.type] = p.value;
  const weekday = WEEKDAYS[parts['weekday'] ?? ''];
  if (weekday === undefined) throw new Error(`Cannot read the weekday of ${instant.toISOString()} in ${zoneId}`);
  return { date: `${parts['year']}-${parts['month']}-${parts['day']}`, weekday };
}
