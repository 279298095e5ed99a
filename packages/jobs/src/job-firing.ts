import type { JobExecutionStatusEntry, JobFiringInFlight, JobSpecificationDocument } from '@sas/contracts';
import { ensureError } from '@sas/runtime';
import type { Logger } from 'pino';
import { failureMessage, triggerMessage } from './job-messages';
import type { JobOutbox } from './job-outbox';
import { isFinished, statusesAfterFiring } from './job-status-transitions';
import type { JobStore } from './job-store';
import { oneOffExclusion, planFiring } from './plan-firing';
import { statusEntry } from './status-entry';

/** What a firing needs; the {@link JobRunner} builds it once. */
export interface FiringContext {
  store: JobStore;
  outbox: JobOutbox;
  logger: Logger;
  instanceId: string;
  /** How long finished jobs and their history stay before the TTL removes them. */
  retentionMs: number;
  lateToleranceMs: number;
}

/** How one firing ended. */
export type FiringOutcome =
  | { kind: 'fired' | 'failed'; fireTime: Date }
  /** Another runner changed the job first, or the job was canceled while the firing was in flight. */
  | { kind: 'lost' | 'canceled' | 'not-due' };

/**
 * Fires a due job once: claims the firing with a conditional update that also moves the job to
 * its next fire time and marks the firing in flight, then sends the trigger, then settles.
 * Missed occurrences collapse into this one firing (see `planFiring`).
 */
export async function fireDueJob(ctx: FiringContext, job: JobSpecificationDocument, now: Date): Promise<FiringOutcome> {
  const plan = planFiring(job, now, ctx.lateToleranceMs);
  if (!plan) return { kind: 'not-due' };
  const inFlight: JobFiringInFlight = {
    fireTime: plan.fireTime,
    by: ctx.instanceId,
    claimedAt: now,
    late: plan.late,
    lateByMs: plan.lateByMs,
    missedSince: plan.missedSince,
  };
  const claim = { nextFireTime: plan.nextFireTime, lastFireTime: plan.fireTime, inFlight, now };
  if (!(await ctx.store.claimFiring(job._id, job.revision, claim))) return { kind: 'lost' };
  return runClaimedFiring(ctx, { ...job, ...claim, revision: job.revision + 1 }, inFlight, now);
}

/**
 * Takes over a firing whose runner died between claiming and settling it, and does it again.
 * The receivers deduplicate (same orderId, same BullMQ job id, same key and fire time), so a
 * firing that had in fact been sent is not delivered twice.
 */
export async function redoStaleFiring(ctx: FiringContext, job: JobSpecificationDocument, now: Date): Promise<FiringOutcome> {
  if (!job.inFlight) return { kind: 'not-due' };
  const inFlight: JobFiringInFlight = { ...job.inFlight, by: ctx.instanceId, claimedAt: now };
  const claim = { nextFireTime: job.nextFireTime, lastFireTime: job.lastFireTime, inFlight, now };
  if (!(await ctx.store.claimFiring(job._id, job.revision, claim))) return { kind: 'lost' };
  ctx.logger.warn({ job: job.jobSpecificationKey, fireTime: inFlight.fireTime, previousRunner: job.inFlight.by }, 'redoing a firing whose runner stopped before settling it');
  return runClaimedFiring(ctx, { ...job, ...claim, revision: job.revision + 1 }, inFlight, now);
}

async function runClaimedFiring(
  ctx: FiringContext,
  job: JobSpecificationDocument,
  inFlight: JobFiringInFlight,
  now: Date,
): Promise<FiringOutcome> {
  const { fireTime } = inFlight;
  const log = ctx.logger.child({ job: job.jobSpecificationKey, fireTime });
  // Decided again from the stored job rather than carried over, so a redone firing decides the same way.
  let reason = oneOffExclusion(job, fireTime);
  if (reason === null) {
    const out = triggerMessage(job, fireTime);
    try {
      await ctx.outbox.send(out.queue, out.message, { jobId: out.jobId });
    } catch (e) {
      reason = `could not send the trigger to queue '${out.queue}': ${ensureError(e).message}`;
    }
  }
  const sent = reason === null;
  if (reason !== null) await sendFailureCommand(ctx, job, fireTime, reason, log);

  const statuses = statusesAfterFiring(sent, job.nextFireTime !== null);
  const finish = isFinished(statuses.status) ? { status: statuses.status, deleteTime: new Date(now.getTime() + ctx.retentionMs) } : null;
  const settled = await ctx.store.settleFiring(job._id, fireTime, ctx.instanceId, finish, now);
  if (!settled) {
    log.warn('another runner took this firing over before it was settled; it records the outcome');
    return { kind: 'lost' };
  }
  if (settled.status === 'CANCELED') {
    log.info({ sent }, 'job was canceled while this firing was in flight; no status recorded for it');
    return { kind: 'canceled' };
  }
  const entries: JobExecutionStatusEntry[] = statuses.entries.map((status, i) =>
    statusEntry({
      job,
      status,
      at: now,
      // The FAILED entry belongs to the claimed revision, the status after it to the settled one.
      revision: settled.revision - (statuses.entries.length - 1 - i),
      by: ctx.instanceId,
      deleteTime: finish ? finish.deleteTime : null,
      fireTime,
      nextFireTime: status === 'SCHEDULED' ? job.nextFireTime : null,
      ...(status === 'FAILED' && reason !== null ? { reason } : {}),
      lateness: inFlight,
    }),
  );
  await ctx.store.appendStatuses(entries);
  // Only the newest entries of a recurring job are worth keeping; a finished job keeps its history until it goes.
  await ctx.store.expireStatuses(job._id, finish ? [] : entries.map((e) => e._id), finish ? finish.deleteTime : now);
  const details = { status: statuses.status, nextFireTime: job.nextFireTime, late: inFlight.late, lateByMs: inFlight.lateByMs, missedSince: inFlight.missedSince };
  if (sent) log.info(details, 'job fired');
  else log.warn({ ...details, reason }, 'job firing failed');
  return { kind: sent ? 'fired' : 'failed', fireTime };
}

async function sendFailureCommand(ctx: FiringContext, job: JobSpecificationDocument, fireTime: Date, reason: string, log: Logger): Promise<void> {
  const out = failureMessage(job, fireTime, reason);
  try {
    await ctx.outbox.send(out.queue, out.message, { jobId: out.jobId });
  } catch (e) {
    log.error(
      { err: ensureError(e), queue: out.queue, reason },
      `could not send the failure command of job '${job.jobSpecificationKey}'; the FAILED status is recorded, tell its requestor by hand`,
    );
  }
}
