import type { JobSpecification, JobSpecificationDocument } from '@sas/contracts';
import { nextFireTime } from './fire-times';
import { resolveZoneId } from './validate-job-specification';

/** Outcome of {@link newJobDocument}. */
export type NewJobDocument = { ok: true; doc: JobSpecificationDocument } | { ok: false; reason: string };

/**
 * The stored form of a validated specification, SCHEDULED with its first fire time: the first
 * allowed cron occurrence after `now`, or the one-off instant (one already past fires at once,
 * recorded as late). Refused when a recurring job can never fire (its cron only matches days its
 * calendar excludes), because such a job would sit in the store forever doing nothing.
 */
export function newJobDocument(spec: JobSpecification, id: string, now: Date): NewJobDocument {
  const zoneId = resolveZoneId(spec.zoneId);
  const calendar = spec.calendar ?? null;
  let first: Date | null;
  if (spec.schedulingSpecification !== undefined) {
    first = nextFireTime({ expression: spec.schedulingSpecification, zoneId, calendar }, now);
    if (!first) {
      return {
        ok: false,
        reason: `schedulingSpecification '${spec.schedulingSpecification}' never fires on a day its calendar allows in ${zoneId}; change the cron expression or the calendar`,
      };
    }
  } else {
    first = new Date(spec.singleSchedule ?? '');
  }
  return {
    ok: true,
    doc: {
      _id: id,
      schemaVersion: 2,
      jobSpecificationKey: spec.jobSpecificationKey,
      jobRequestor: spec.jobRequestor,
      schedulingSpecification: spec.schedulingSpecification ?? null,
      singleSchedule: spec.singleSchedule === undefined ? null : new Date(spec.singleSchedule),
      zoneId,
      calendar,
      triggerCommand: spec.triggerCommand,
      triggerIdentifier: spec.triggerIdentifier,
      failureCommand: spec.failureCommand,
      failureIdentifier: spec.failureIdentifier,
      processingContext: spec.processingContext ?? null,
      ...(spec.misfireThresholdMs !== undefined ? { misfireThresholdMs: spec.misfireThresholdMs } : {}),
      ...(spec.misfirePolicy !== undefined ? { misfirePolicy: spec.misfirePolicy } : {}),
      status: 'SCHEDULED',
      nextFireTime: first,
      lastFireTime: null,
      inFlight: null,
      revision: 0,
      createdAt: now,
      updatedAt: now,
      deleteTime: null,
    },
  };
}
