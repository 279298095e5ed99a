import { JobSpecification, describeIssues } from '@sas/contracts';
import { checkCronExpression } from './cron-occurrences';

/** The zone a job uses when its specification names none. */
export const DEFAULT_ZONE_ID = 'UTC';

/** Outcome of {@link validateJobSpecification}: expected outcomes are values, not exceptions. */
export type JobSpecificationValidation = { ok: true; spec: JobSpecification } | { ok: false; issues: string[] };

/**
 * The one place a job specification is validated, whoever submits it (CLI, dashboard): the
 * contract's shape (exactly one of cron or instant, a real IANA zone, a complete processing
 * context, valid commands) and then the cron expression itself, read in the job's zone.
 * Each issue reads `field: what is wrong`.
 */
export function validateJobSpecification(input: unknown): JobSpecificationValidation {
  const parsed = JobSpecification.safeParse(input);
  if (!parsed.success) return { ok: false, issues: describeIssues(parsed.error) };
  const spec = parsed.data;
  if (spec.schedulingSpecification !== undefined) {
    const cron = checkCronExpression(spec.schedulingSpecification, resolveZoneId(spec.zoneId));
    if (!cron.ok) return { ok: false, issues: [`schedulingSpecification: ${cron.message}`] };
  }
  return { ok: true, spec };
}

/** The canonical spelling of a valid zone id (`europe/paris` → `Europe/Paris`), or UTC when absent. */
export function resolveZoneId(zoneId: string | undefined): string {
  if (zoneId === undefined) return DEFAULT_ZONE_ID;
  return new Intl.DateTimeFormat('en-US', { timeZone: zoneId }).resolvedOptions().timeZone;
}
