import type { JobCalendar } from '@sas/contracts';
import { localDay } from './local-day';

/**
 * Why `instant` falls on a day the calendar excludes, or null when the job may fire then.
 * The reason is written for an operator: "2024-12-25 is a holiday in Europe/Paris".
 */
export function excludedDayReason(calendar: JobCalendar | null, instant: Date, zoneId: string): string | null {
  if (!calendar) return null;
  const day = localDay(instant, zoneId);
  if (calendar.excludeWeekends && (day.weekday === 0 || day.weekday === 6)) {
    return `${day.date} is a ${day.weekday === 0 ? 'Sunday' : 'Saturday'} in ${zoneId} and the calendar excludes weekends`;
  }
  if (calendar.holidays?.includes(day.date)) return `${day.date} is a holiday in ${zoneId}`;
  return null;
}
