import { CronExpressionParser, type CronExpression } from 'cron-parser';

/**
 * Parsed expressions by zone and text. The job runner asks for the same few expressions at every
 * poll, and parsing was most of its CPU; an iterator is reset to the wanted instant before each
 * use, so a cached one answers exactly as a fresh parse would. Bounded: past the cap the cache
 * starts over rather than growing with every expression ever seen.
 */
const parsed = new Map<string, CronExpression>();
const PARSED_CAP = 1000;

function iteratorAt(expression: string, zoneId: string, at: Date): CronExpression {
  const key = `${zoneId}\u0000${expression}`;
  let cron = parsed.get(key);
  if (!cron) {
    cron = CronExpressionParser.parse(expression, { tz: zoneId, currentDate: at });
    if (parsed.size >= PARSED_CAP) parsed.clear();
    parsed.set(key, cron);
  } else {
    cron.reset(at);
  }
  return cron;
}

/** Outcome of {@link checkCronExpression}: expected outcomes are values. */
export type CronCheck = { ok: true } | { ok: false; message: string };

/**
 * Checks a job's cron expression: 5 fields (minute hour day-of-month month day-of-week) or 6
 * (seconds first), values in range. Aliases such as `@daily` are refused so every stored
 * expression reads the same way.
 */
export function checkCronExpression(expression: string, zoneId: string): CronCheck {
  const fields = expression.trim().split(/\s+/).length;
  if (fields !== 5 && fields !== 6) {
    return {
      ok: false,
      message: `schedulingSpecification '${expression}' has ${fields} field(s); write 5 (minute hour day-of-month month day-of-week) or 6 (second first), e.g. '0 30 9 * * 1-5'`,
    };
  }
  try {
    iteratorAt(expression, zoneId, new Date(0)).next();
    return { ok: true };
  } catch (e) {
    return {
      ok: false,
      message: `schedulingSpecification '${expression}' is not a valid cron expression: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
}

/** The first occurrence strictly after `after`, in `zoneId`; null when the expression never fires again. */
export function occurrenceAfter(expression: string, zoneId: string, after: Date): Date | null {
  try {
    return iteratorAt(expression, zoneId, after).next().toDate();
  } catch {
    return null;
  }
}

/** The last occurrence at or before `atOrBefore`, in `zoneId`; null when there is none. */
export function occurrenceAtOrBefore(expression: string, zoneId: string, atOrBefore: Date): Date | null {
  try {
    // prev() is strictly before its start, so start one millisecond later to include `atOrBefore`.
    return iteratorAt(expression, zoneId, new Date(atOrBefore.getTime() + 1))
      .prev()
      .toDate();
  } catch {
    return null;
  }
}

const MIDNIGHT = '0 0 0 * * *';

/** The instant the next local day starts in `zoneId` (cron-parser handles DST-shifted midnights). */
export function startOfNextDay(instant: Date, zoneId: string): Date | null {
  return occurrenceAfter(MIDNIGHT, zoneId, instant);
}

/** The instant the local day of `instant` started in `zoneId`. */
export function startOfDay(instant: Date, zoneId: string): Date | null {
  return occurrenceAtOrBefore(MIDNIGHT, zoneId, instant);
}
