import type { JobExecutionStatusEntry, JobFiringInFlight, JobSpecificationDocument } from '@sas/contracts';
import { ensureError, PermanentError } from '@sas/runtime';
import type { Logger } from 'pino';
import { retryDelayMs, type FiringRetryPolicy } from './firing-retry';
import { failureMessage, triggerMessage } from './job-messages';
import type { JobOutbox } from './job-outbox';
import { isFinished, statusesAfterFiring } from './job-status-transitions';
import type { FiringClaim, JobStore } from './job-store';
import { oneOffExclusion, planFiring, type FiringPlan, type FiringRules } from './plan-firing';
import { statusEntry } from './status-entry';

/** What a firing needs; the {@link JobRunner} builds it once. */
export interface FiringContext {
  store: JobStore;
  outbox: JobOutbox;
  logger: Logger;
  instanceId: string;
  /** How long finished jobs and their history stay before the TTL removes them. */
  retentionMs: number;
  /** Lateness tolerance and default misfire threshold; see `planFiring`. */
  rules: FiringRules;
  retry: FiringRetryPolicy;
}

/** How one firing ended. */
export type FiringOutcome =
  /** `late`: the firing started past its fire time by more than the tolerance (or made up a missed one). */
  | { kind: 'fired' | 'failed'; fireTime: Date; late: boolean }
  /** An attempt failed transiently; the firing stays in flight and is tried again at `retryAt`. */
  | { kind: 'retrying'; fireTime: Date; attempts: number; retryAt: Date }
  /** Misfire policy `skip`: occurrences later than the threshold were passed over, none fired. */
  | { kind: 'skipped'; missedSince: Date; lastSkipped: Date }
  /** Another runner changed the job first, or the job was canceled while the firing was in flight. */
  | { kind: 'lost' | 'canceled' | 'not-due' };

/** What an attempt got done before it stopped; kept in the in-flight firing so the next attempt does not redo it. */
interface Progress {
  sent: boolean;
  failedReason: string | null;
}

/**
 * Takes one step of a due job (see `planFiring`): claims the firing with a conditional update that
 * also moves the job to its next fire time and marks the firing in flight, then sends the trigger,
 * records the status entries, and settles. Under misfire policy `skip` it only moves the job past
 * its misfired occurrences. The runner calls it again while the job is due, to catch up.
 */
export async function fireDueJob(ctx: FiringContext, job: JobSpecificationDocument, now: Date): Promise<FiringOutcome> {
  const plan = planFiring(job, now, ctx.rules);
  if (!plan) return { kind: 'not-due' };
  if (plan.kind === 'skip') return skipMisfired(ctx, job, plan, now);
  const inFlight: JobFiringInFlight = {
    fireTime: plan.fireTime,
    by: ctx.instanceId,
    claimedAt: now,
    late: plan.late,
    lateByMs: plan.lateByMs,
    missedSince: plan.missedSince,
    lateToleranceMs: plan.lateToleranceMs,
    // Carried in the claim, so a redo after a crash fails the firing the same way.
    ...(plan.kind === 'fail' ? { failedReason: plan.reason } : {}),
  };
  const claim = { nextFireTime: plan.nextFireTime, lastFireTime: plan.fireTime, inFlight, now };
  return claimAndRun(ctx, job, claim, now);
}

/**
 * Tries again a firing left in flight: one whose last attempt failed transiently (its `retryAt`
 * has come), or whose runner stopped between claiming and settling it (stale). A trigger that had
 * in fact gone out is sent again with the same BullMQ job id (dropped while the first is still
 * queued) and the same orderId or (key, fire time), on which the receivers deduplicate; one known
 * to have gone out is not sent again.
 */
export async function retryInFlightFiring(ctx: FiringContext, job: JobSpecificationDocument, now: Date): Promise<FiringOutcome> {
  if (!job.inFlight) return { kind: 'not-due' };
  const previous = job.inFlight;
  const inFlight: JobFiringInFlight = { ...job.inFlight, by: ctx.instanceId, claimedAt: now, retryAt: null };
  const claim = { nextFireTime: job.nextFireTime, lastFireTime: job.lastFireTime, inFlight, now };
  const fields = { job: job.jobSpecificationKey, fireTime: inFlight.fireTime, previousRunner: job.inFlight.by, attempts: previous.attempts ?? 0 };
  if (previous.retryAt) ctx.logger.info({ ...fields, lastError: previous.lastError }, 'retrying a firing whose last attempt failed');
  else ctx.logger.warn(fields, 'redoing a firing whose runner stopped before settling it');
  return claimAndRun(ctx, job, claim, now);
}

/**
 * Moves a job past its misfired occurrences without firing them, conditional on its revision like
 * a claim, and records a SCHEDULED entry saying which were skipped.
 */
async function skipMisfired(ctx: FiringContext, job: JobSpecificationDocument, plan: Extract<FiringPlan, { kind: 'skip' }>, now: Date): Promise<FiringOutcome> {
  const claim = { nextFireTime: plan.nextFireTime, lastFireTime: job.lastFireTime, inFlight: null, now };
  if (!(await ctx.store.claimFiring(job._id, job.revision, claim))) return { kind: 'lost' };
  const reason = `misfirePolicy 'skip': the occurrences from ${plan.missedSince.toISOString()} to ${plan.lastSkipped.toISOString()} were more than ${plan.misfireThresholdMs} ms late and did not fire`;
  const entry = statusEntry({
    job,
    status: 'SCHEDULED',
    at: now,
    revision: job.revision + 1,
    by: ctx.instanceId,
    deleteTime: null,
    fireTime: plan.lastSkipped,
    nextFireTime: plan.nextFireTime,
    reason,
  });
  // The skip is done (the job moved on); an entry lost to a store error leaves only the log line.
  await ctx.store.appendStatuses([{ ...entry, missedSince: plan.missedSince }]).catch((e: unknown) => {
    ctx.logger.warn({ err: ensureError(e), job: job.jobSpecificationKey }, 'could not record the skipped occurrences in the status history');
  });
  ctx.logger.warn({ job: job.jobSpecificationKey, missedSince: plan.missedSince, lastSkipped: plan.lastSkipped, nextFireTime: plan.nextFireTime }, 'job skipped misfired occurrences');
  return { kind: 'skipped', missedSince: plan.missedSince, lastSkipped: plan.lastSkipped };
}

/** Claims the firing (conditional on the job's revision), then runs it. */
async function claimAndRun(
  ctx: FiringContext,
  job: JobSpecificationDocument,
  claim: FiringClaim & { inFlight: JobFiringInFlight },
  now: Date,
): Promise<FiringOutcome> {
  const claimed = { ...job, ...claim, revision: job.revision + 1 };
  const progress = progressOf(claim.inFlight);
  try {
    if (!(await ctx.store.claimFiring(job._id, job.revision, claim))) return { kind: 'lost' };
  } catch (e) {
    // The claim may have been applied with only its answer lost: then it is ours, so plan its retry
    // now rather than after the in-flight timeout. If it was not applied, the defer matches nothing.
    return deferAfterFailure(ctx, claimed, claim.inFlight, progress, ensureError(e), now);
  }
  return runClaimedFiring(ctx, claimed, claim.inFlight, now);
}

function progressOf(inFlight: JobFiringInFlight): Progress {
  const state = inFlight;
  return { sent: state.sent === true, failedReason: state.failedReason ?? null };
}

async function runClaimedFiring(ctx: FiringContext, job: JobSpecificationDocument, inFlight: JobFiringInFlight, now: Date): Promise<FiringOutcome> {
  const progress = progressOf(inFlight);
  try {
    return await attemptFiring(ctx, job, inFlight, progress, now);
  } catch (e) {
    // A transient failure of the send or of any store call: nothing is lost, the firing stays in
    // flight with what this attempt achieved, and is tried again after a backoff.
    return deferAfterFailure(ctx, job, inFlight, progress, ensureError(e), now);
  }
}

/**
 * One attempt: send the trigger (unless an earlier attempt did, or decided the firing failed),
 * append the status entries, and settle. Every step is idempotent, so an attempt that stops at
 * any point can be repeated: entries have deterministic ids, sends have deterministic job ids.
 */
async function attemptFiring(ctx: FiringContext, job: JobSpecificationDocument, inFlight: JobFiringInFlight, progress: Progress, now: Date): Promise<FiringOutcome> {
  const { fireTime } = inFlight;
  const log = ctx.logger.child({ job: job.jobSpecificationKey, fireTime });
  // Decided again from the stored job rather than carried over, so a redone firing decides the same way.
  progress.failedReason ??= oneOffExclusion(job, fireTime);
  if (progress.failedReason === null && !progress.sent) {
    const out = triggerMessage(job, fireTime);
    try {
      await ctx.outbox.send(out.queue, out.message, { jobId: out.jobId });
      progress.sent = true;
    } catch (e) {
      const error = ensureError(e);
      const attempts = (inFlight.attempts ?? 0) + 1;
      if (error instanceof PermanentError) progress.failedReason = `could not send the trigger to queue '${out.queue}': ${error.message}`;
      else if (attempts >= ctx.retry.maxFiringAttempts) {
        progress.failedReason = `could not send the trigger to queue '${out.queue}' in ${attempts} attempts; last error: ${error.message}`;
      } else throw error;
    }
  }
  const reason = progress.failedReason;
  const sent = reason === null;
  if (reason !== null) await sendFailureCommand(ctx, job, inFlight, reason, log);

  const statuses = statusesAfterFiring(sent, job.nextFireTime !== null);
  const finish = isFinished(statuses.status) ? { status: statuses.status, deleteTime: firingDeleteTime(inFlight, ctx.retentionMs) } : null;
  const entries: JobExecutionStatusEntry[] = statuses.entries.map((status, i) =>
    statusEntry({
      job,
      status,
      at: now,
      // The FAILED entry belongs to the claimed revision, the status after it to the settled one.
      revision: job.revision + 1 - (statuses.entries.length - 1 - i),
      by: ctx.instanceId,
      // History lives as long as its job: entries of a job that goes on keep no deleteTime.
      deleteTime: finish ? finish.deleteTime : null,
      fireTime,
      nextFireTime: status === 'SCHEDULED' ? job.nextFireTime : null,
      ...(status === 'FAILED' && reason !== null ? { reason } : {}),
      lateness: { ...inFlight, lateToleranceMs: inFlight.lateToleranceMs ?? ctx.rules.lateToleranceMs },
    }),
  );
  // Recorded before the settle, which is the commit point: a settled firing has its entries.
  await ctx.store.appendStatuses(entries);
  if (finish) await ctx.store.expireStatuses(job._id, [], finish.deleteTime);
  const settled = await ctx.store.settleFiring(job._id, fireTime, ctx.instanceId, finish, now);
  if (!settled) {
    log.warn('another runner took this firing over before it was settled; it records the outcome');
    return { kind: 'lost' };
  }
  if (settled.status === 'CANCELED') {
    await expireAfterCancel(ctx, job, settled, log);
    log.info({ sent }, 'job was canceled while this firing was in flight');
    return { kind: 'canceled' };
  }
  const details = { status: statuses.status, nextFireTime: job.nextFireTime, late: inFlight.late, lateByMs: inFlight.lateByMs, missedSince: inFlight.missedSince, lateToleranceMs: inFlight.lateToleranceMs };
  if (sent) log.info(details, 'job fired');
  else log.warn({ ...details, reason }, 'job firing failed');
  return { kind: sent ? 'fired' : 'failed', fireTime, late: inFlight.late };
}

/**
 * A finished firing's deleteTime: retention after the firing's FIRST claim, which every attempt
 * derives alike from the stored lateness (`(missedSince ?? fireTime) + lateByMs`), so retries
 * give the job and all its entries one and the same deleteTime.
 */
function firingDeleteTime(inFlight: JobFiringInFlight, retentionMs: number): Date {
  const firstClaim = (inFlight.missedSince ?? inFlight.fireTime).getTime() + inFlight.lateByMs;
  return new Date(firstClaim + retentionMs);
}

/** The cancel gave the job's entries its deleteTime, maybe before this firing appended its own: give them it too. */
async function expireAfterCancel(ctx: FiringContext, job: JobSpecificationDocument, canceled: JobSpecificationDocument, log: Logger): Promise<void> {
  if (!canceled.deleteTime) return;
  try {
    await ctx.store.expireStatuses(job._id, [], canceled.deleteTime);
  } catch (e) {
    log.warn({ err: ensureError(e) }, 'could not give the status entries of a canceled job its deleteTime; they stay until removed by hand');
  }
}

async function deferAfterFailure(
  ctx: FiringContext,
  job: JobSpecificationDocument,
  inFlight: JobFiringInFlight,
  progress: Progress,
  error: Error,
  now: Date,
): Promise<FiringOutcome> {
  const attempts = (inFlight.attempts ?? 0) + 1;
  const retryAt = new Date(now.getTime() + retryDelayMs(attempts, ctx.retry));
  const deferral = { attempts, retryAt, sent: progress.sent, failedReason: progress.failedReason, lastError: error.message };
  // If this write fails too, the firing stays in flight as claimed and is redone after the in-flight timeout.
  if (!(await ctx.store.deferFiring(job._id, inFlight.fireTime, ctx.instanceId, deferral, now))) return { kind: 'lost' };
  ctx.logger.warn(
    { err: error, job: job.jobSpecificationKey, fireTime: inFlight.fireTime, attempts, retryAt, sent: progress.sent },
    'job firing attempt failed; it stays in flight and is retried',
  );
  return { kind: 'retrying', fireTime: inFlight.fireTime, attempts, retryAt };
}

/**
 * Tells the job's requestor that the firing failed. A transient failure defers the firing (which
 * keeps its FAILED decision, so the trigger is not tried again) until the attempts run out; then,
 * or on a permanent failure, the FAILED status is recorded anyway and the error logged.
 */
async function sendFailureCommand(ctx: FiringContext, job: JobSpecificationDocument, inFlight: JobFiringInFlight, reason: string, log: Logger): Promise<void> {
  const out = failureMessage(job, inFlight.fireTime, reason);
  try {
    await ctx.outbox.send(out.queue, out.message, { jobId: out.jobId });
  } catch (e) {
    const error = ensureError(e);
    const attempts = (inFlight.attempts ?? 0) + 1;
    if (!(error instanceof PermanentError) && attempts < ctx.retry.maxFiringAttempts) throw error;
    log.error(
      { err: error, queue: out.queue, reason, attempts },
      `could not send the failure command of job '${job.jobSpecificationKey}'; the FAILED status is recorded, tell its requestor by hand`,
    );
  }
}
