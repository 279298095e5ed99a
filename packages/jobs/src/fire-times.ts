import type { JobCalendar } from '@sas/contracts';
import { occurrenceAfter, occurrenceAtOrBefore, startOfDay, startOfNextDay } from './cron-occurrences';
import { excludedDayReason } from './excluded-day';

/** A recurring job's timing: its cron expression read in its zone, minus its calendar's excluded days. */
export interface RecurringSchedule {
  expression: string;
  zoneId: string;
  calendar: JobCalendar | null;
}

/**
 * How many excluded days in a row we step over before deciding the job never fires. A calendar
 * holds at most 1000 holidays, so the longest real run of excluded days (holidays plus the
 * weekends between them) is shorter; only a cron that fires on excluded days alone gets this far.
 */
const MAX_EXCLUDED_DAYS = 1500;

/**
 * The first fire time strictly after `after`: the cron's next occurrence, moved to the next
 * occurrence on a day the calendar does not exclude. Excluded days are stepped over a whole day
 * at a time, so a per-second cron skips a weekend in two steps, not 172 800.
 * Null when the job never fires again.
 */
export function nextFireTime(schedule: RecurringSchedule, after: Date): Date | null {
  return firstAllowedFireTime(schedule, occurrenceAfter(schedule.expression, schedule.zoneId, after));
}

/**
 * The first fire time at or after `occurrence`, itself an occurrence of the cron (or null): the
 * calendar's excluded days stepped over as {@link nextFireTime} does. For a caller that already
 * holds the cron's next occurrence and would otherwise ask cron-parser for it again.
 */
export function firstAllowedFireTime(schedule: RecurringSchedule, occurrence: Date | null): Date | null {
  let t = occurrence;
  for (let skipped = 0; t && skipped < MAX_EXCLUDED_DAYS; skipped++) {
    if (!excludedDayReason(schedule.calendar, t, schedule.zoneId)) return t;
    const nextDay = startOfNextDay(t, schedule.zoneId);
    if (!nextDay) return null;
    t = occurrenceAfter(schedule.expression, schedule.zoneId, new Date(nextDay.getTime() - 1));
  }
  return null;
}

/**
 * The latest fire time in `[notBefore, notAfter]` that the calendar allows, or null when there is
 * none. The runner uses it to collapse occurrences missed while no scheduler ran into one firing.
 */
export function latestFireTime(schedule: RecurringSchedule, notAfter: Date, notBefore: Date): Date | null {
  let t = occurrenceAtOrBefore(schedule.expression, schedule.zoneId, notAfter);
  for (let skipped = 0; t && t.getTime() >= notBefore.getTime() && skipped < MAX_EXCLUDED_DAYS; skipped++) {
    if (!excludedDayReason(schedule.calendar, t, schedule.zoneId)) return t;
    const dayStart = startOfDay(t, schedule.zoneId);
    if (!dayStart) return null;
    t = occurrenceAtOrBefore(schedule.expression, schedule.zoneId, new Date(dayStart.getTime() - 1));
  }
  return null;
}
