import type { JobSpecificationDocument, MisfirePolicy } from '@sas/contracts';
import { excludedDayReason } from './excluded-day';
import { occurrenceAfter } from './cron-occurrences';
import { firstAllowedFireTime, latestFireTime } from './fire-times';

/** The parts of a job that decide when it fires. */
export type JobTiming = Pick<
  JobSpecificationDocument,
  'schedulingSpecification' | 'singleSchedule' | 'zoneId' | 'calendar' | 'nextFireTime' | 'misfireThresholdMs' | 'misfirePolicy'
>;

/** The runner's defaults for what a job does not say itself. */
export interface FiringRules {
  /** A firing more than this after its occurrence is recorded `late: true`. */
  lateToleranceMs: number;
  /** An occurrence later than this misfired: the job's misfire policy applies. A job's own `misfireThresholdMs` wins. */
  misfireThresholdMs: number;
}

/** How late a firing is, recorded in its status entry. */
export interface Lateness {
  /** True exactly when `lateByMs` is more than `lateToleranceMs`. */
  late: boolean;
  /**
   * `now` minus the occurrence fired (minus the first of them, when misfired ones collapsed into
   * this firing). The runner's `now` is its clock read right before it claims this firing, whose
   * trigger it sends next: not the start of its poll.
   */
  lateByMs: number;
  /**
   * The first misfired occurrence, on every firing of misfired occurrences (one alone, or several
   * collapsed into it); null for a firing within the threshold.
   */
  missedSince: Date | null;
  /** The tolerance `late` was decided with. */
  lateToleranceMs: number;
}

/** What the runner should do with a due job. */
export type FiringPlan =
  | ({ kind: 'fire'; fireTime: Date; nextFireTime: Date | null } & Lateness)
  | ({ kind: 'fail'; fireTime: Date; reason: string; nextFireTime: null } & Lateness)
  /** Misfire policy `skip`: the occurrences from `missedSince` to `lastSkipped` do not fire; the job moves on to `nextFireTime`. */
  | { kind: 'skip'; missedSince: Date; lastSkipped: Date; nextFireTime: Date; misfireThresholdMs: number };

/**
 * Decides the next step of a due job at `now`, or null when it is not due. Each call plans ONE
 * step; the runner plans again until nothing is due, so a job that fell behind catches up:
 * - an occurrence late by at most the misfire threshold fires on its own, the earliest first,
 *   and the job moves to the occurrence after it (which may be due too);
 * - occurrences later than the threshold misfired: with `fireOnce` (the default) they fire as ONE
 *   firing, for the latest of them; with `skip` none fires. Either way the job moves on to its
 *   first occurrence within the threshold.
 * A one-off job fires (or, misfired under `skip`, fails) once; one whose instant falls on a day
 * its calendar excludes fails instead of firing.
 */
export function planFiring(job: JobTiming, now: Date, rules: FiringRules): FiringPlan | null {
  const due = job.nextFireTime;
  if (!due || due.getTime() > now.getTime()) return null;
  const threshold = job.misfireThresholdMs ?? rules.misfireThresholdMs;
  const policy: MisfirePolicy = job.misfirePolicy ?? 'fireOnce';
  const lateness = (fireTime: Date, missedSince: Date | null): Lateness => {
    const lateByMs = now.getTime() - (missedSince ?? fireTime).getTime();
    return { late: lateByMs > rules.lateToleranceMs, lateByMs, missedSince, lateToleranceMs: rules.lateToleranceMs };
  };
  const misfired = now.getTime() - due.getTime() > threshold;
  if (job.schedulingSpecification === null) {
    const reason = oneOffExclusion(job, due) ?? (misfired && policy === 'skip' ? oneOffMisfire(due, now, threshold) : null);
    // A misfired one-off says so (`missedSince`, its instant) whether it fires late or fails.
    const missed = misfired ? due : null;
    if (reason) return { kind: 'fail', fireTime: due, reason, nextFireTime: null, ...lateness(due, missed) };
    return { kind: 'fire', fireTime: due, nextFireTime: null, ...lateness(due, missed) };
  }
  const schedule = { expression: job.schedulingSpecification, zoneId: job.zoneId, calendar: job.calendar };
  if (!misfired) {
    // The usual case, on time or within the threshold: fire `due` itself and move to the occurrence
    // after it, due or not (one cron evaluation; each costs tens of microseconds).
    const following = firstAllowedFireTime(schedule, occurrenceAfter(schedule.expression, schedule.zoneId, due));
    return { kind: 'fire', fireTime: due, nextFireTime: following, ...lateness(due, null) };
  }
  // The latest misfired occurrence: the last one more than `threshold` before `now`. `due` is one
  // (and was computed with the calendar applied), so it is the fallback.
  const lastMisfired = latestFireTime(schedule, new Date(now.getTime() - threshold - 1), due) ?? due;
  const after = firstAllowedFireTime(schedule, occurrenceAfter(schedule.expression, schedule.zoneId, lastMisfired));
  if (policy === 'skip' && after !== null) {
    return { kind: 'skip', missedSince: due, lastSkipped: lastMisfired, nextFireTime: after, misfireThresholdMs: threshold };
  }
  // `fireOnce`, or `skip` of a job with no occurrence left: its last occurrence fires rather than the
  // job never ending. `due` is the first misfired occurrence (the only one, when it misfired alone):
  // the entry names it either way, as a skip's does.
  return { kind: 'fire', fireTime: lastMisfired, nextFireTime: after, ...lateness(lastMisfired, due) };
}

/** Why a one-off job may not fire at `fireTime` (its calendar excludes that day), or null; recurring jobs never are. */
export function oneOffExclusion(job: Pick<JobTiming, 'schedulingSpecification' | 'calendar' | 'zoneId'>, fireTime: Date): string | null {
  if (job.schedulingSpecification !== null) return null;
  const day = excludedDayReason(job.calendar, fireTime, job.zoneId);
  return day ? `singleSchedule falls on an excluded day: ${day}` : null;
}

function oneOffMisfire(due: Date, now: Date, threshold: number): string {
  return `singleSchedule ${due.toISOString()} was missed by ${now.getTime() - due.getTime()} ms, more than its misfire threshold of ${threshold} ms, and its misfirePolicy is 'skip'`;
}
