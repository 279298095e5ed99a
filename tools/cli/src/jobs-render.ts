import type { JobExecutionStatusEntry, JobSpecificationDocument } from '@sas/contracts';
import type { JobWithHistory } from '@sas/jobs';

const when = (d: Date | null | undefined): string => (d ? d.toISOString() : '-');

/** How a job is scheduled, in one phrase: `cron '0 2 * * *' in Europe/Paris` or `once at …`. */
function describeSchedule(job: JobSpecificationDocument): string {
  const base = job.schedulingSpecification !== null ? `cron '${job.schedulingSpecification}' in ${job.zoneId}` : `once at ${when(job.singleSchedule)}`;
  const cal = job.calendar;
  if (!cal) return base;
  const parts = [cal.excludeWeekends ? 'weekends' : '', cal.holidays?.length ? `${cal.holidays.length} holiday(s)` : ''].filter(Boolean);
  return parts.length ? `${base}, skipping ${parts.join(' and ')}` : base;
}

/** One line per job for `sas jobs list`. */
export function renderJobLine(job: JobSpecificationDocument): string {
  return `${job.jobSpecificationKey.padEnd(24)} ${job.jobRequestor.padEnd(16)} ${job.status.padEnd(10)} next ${when(job.nextFireTime).padEnd(24)} ${describeSchedule(job)}`;
}

function renderEntry(e: JobExecutionStatusEntry): string {
  const parts = [`  ${when(e.updatedTime)}  ${e.executionStatus.padEnd(10)} by ${e.by}`];
  if (e.fireTime) parts.push(`fire ${when(e.fireTime)}`);
  if (e.nextFireTime) parts.push(`next ${when(e.nextFireTime)}`);
  const tolerance = e.lateToleranceMs !== undefined ? `, tolerance ${e.lateToleranceMs} ms` : '';
  if (e.late) parts.push(`LATE by ${e.lateByMs ?? 0} ms${tolerance}`);
  // A collapsed firing's span; a skip entry names its own span in `reason`.
  if (e.missedSince && !e.reason) parts.push(`misfired since ${when(e.missedSince)}, fired once`);
  if (e.reason) parts.push(`reason: ${e.reason}`);
  if (e.deleteTime) parts.push(`[removed after ${when(e.deleteTime)}]`);
  return parts.join('  ');
}

/** `sas jobs show`: the specification, where it is, and its status history (current last). */
export function renderJobDetails(shown: JobWithHistory): string[] {
  const { job } = shown;
  const trigger =
    job.triggerCommand.type === 'submit'
      ? `submit '${job.triggerCommand.workflow}' as order ${job.triggerIdentifier}@<fire time>`
      : `message to '${job.triggerCommand.queue}' (${job.triggerIdentifier})`;
  const lines = [
    `job ${job.jobSpecificationKey} (${job._id})  requestor ${job.jobRequestor}`,
    `status ${job.status}  current entry ${shown.current?.executionStatus ?? '-'}  revision ${job.revision}`,
    `schedule: ${describeSchedule(job)}${job.misfireThresholdMs !== undefined || job.misfirePolicy ? `  misfire: ${job.misfirePolicy ?? 'fireOnce'} beyond ${job.misfireThresholdMs !== undefined ? `${job.misfireThresholdMs} ms` : "the scheduler's threshold"}` : ''}`,
    `next fire ${when(job.nextFireTime)}  last fire ${when(job.lastFireTime)}${job.inFlight ? `  in flight: ${when(job.inFlight.fireTime)} by ${job.inFlight.by}` : ''}`,
    `trigger: ${trigger}`,
    `on failure: message to '${job.failureCommand.queue}' (${job.failureIdentifier})`,
  ];
  if (job.processingContext) {
    const c = job.processingContext;
    lines.push(`processing context: entity ${c.processingEntity}, client request ${c.clientRequestId}, unit of work ${c.unitOfWorkId}`);
  }
  if (job.deleteTime) lines.push(`finished: removed after ${when(job.deleteTime)}`);
  lines.push('history:', ...shown.history.map(renderEntry));
  return lines;
}
