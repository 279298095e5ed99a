import type { JobSpecificationDocument } from '@sas/contracts';
import { excludedDayReason } from './excluded-day';
import { occurrenceAfter } from './cron-occurrences';
import { firstAllowedFireTime, latestFireTime, nextFireTime } from './fire-times';

/** The parts of a job that decide when it fires. */
export type JobTiming = Pick<
  JobSpecificationDocument,
  'schedulingSpecification' | 'singleSchedule' | 'zoneId' | 'calendar' | 'nextFireTime'
>;

/** How late a firing is, recorded in its status entry. */
export interface Lateness {
  /** True when occurrences were missed, or the firing ran more than the tolerance after its time. */
  late: boolean;
  /** `now` minus the first occurrence that was due. */
  lateByMs: number;
  /** The first missed occurrence, when several collapsed into this firing; null otherwise. */
  missedSince: Date | null;
}

/** What the runner should do with a due job. */
export type FiringPlan =
  | ({ kind: 'fire'; fireTime: Date; nextFireTime: Date | null } & Lateness)
  | ({ kind: 'fail'; fireTime: Date; reason: string; nextFireTime: null } & Lateness);

/**
 * Decides the firing of a job at `now`, or null when it is not due. A recurring job that missed
 * several occurrences (no scheduler ran) fires ONCE, for the latest missed occurrence — not never,
 * and not once per occurrence — and its next fire time is the first occurrence after `now`.
 * A one-off job whose instant falls on a day its calendar excludes fails instead of firing.
 */
export function planFiring(job: JobTiming, now: Date, lateToleranceMs: number): FiringPlan | null {
  const due = job.nextFireTime;
  if (!due || due.getTime() > now.getTime()) return null;
  const lateByMs = now.getTime() - due.getTime();
  if (job.schedulingSpecification === null) {
    const lateness: Lateness = { late: lateByMs > lateToleranceMs, lateByMs, missedSince: null };
    const reason = oneOffExclusion(job, due);
    if (reason) return { kind: 'fail', fireTime: due, reason, nextFireTime: null, ...lateness };
    return { kind: 'fire', fireTime: due, nextFireTime: null, ...lateness };
  }
  const schedule = { expression: job.schedulingSpecification, zoneId: job.zoneId, calendar: job.calendar };
  // Usually the runner is on time: the cron's next occurrence after `due` is still ahead. Then no
  // occurrence was missed, so the firing is for `due`, and that occurrence is also the first after
  // `now`: one cron evaluation answers both questions (each costs tens of microseconds).
  const following = occurrenceAfter(schedule.expression, schedule.zoneId, due);
  if (following !== null && following.getTime() > now.getTime()) {
    return { kind: 'fire', fireTime: due, nextFireTime: firstAllowedFireTime(schedule, following), late: lateByMs > lateToleranceMs, lateByMs, missedSince: null };
  }
  // `due` itself was computed with the calendar applied, so it is the fallback when nothing later fits.
  const fireTime = latestFireTime(schedule, now, due) ?? due;
  const missedSince = fireTime.getTime() > due.getTime() ? due : null;
  return {
    kind: 'fire',
    fireTime,
    nextFireTime: nextFireTime(schedule, now),
    late: missedSince !== null || lateByMs > lateToleranceMs,
    lateByMs,
    missedSince,
  };
}

/** Why a one-off job may not fire at `fireTime` (its calendar excludes that day), or null; recurring jobs never are. */
export function oneOffExclusion(job: Pick<JobTiming, 'schedulingSpecification' | 'calendar' | 'zoneId'>, fireTime: Date): string | null {
  if (job.schedulingSpecification !== null) return null;
  const day = excludedDayReason(job.calendar, fireTime, job.zoneId);
  return day ? `singleSchedule falls on an excluded day: ${day}` : null;
}
