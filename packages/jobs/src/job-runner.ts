import { ensureError, type Clock } from '@sas/runtime';
import type { Logger } from 'pino';
import { DEFAULT_FIRING_RETRY } from './firing-retry';
import { fireDueJob, retryInFlightFiring, type FiringContext, type FiringOutcome } from './job-firing';
import type { JobLease } from './job-lease';
import type { JobOutbox } from './job-outbox';
import type { JobStore } from './job-store';

/** Name of the lease that picks the one runner firing jobs. */
export const JOB_RUNNER_LEASE = 'job-runner';

/** Options of {@link JobRunner}. */
export interface JobRunnerOptions {
  /** Holder name in the lease and in status entries. */
  instanceId: string;
  /** Time between polls for due jobs; 0 disables the timer (a test or simulation calls `poll`). @default 1000 */
  pollIntervalMs?: number;
  /** How long the lease lasts; a standby takes over this long after the holder dies. @default 3 × pollIntervalMs */
  leaseTtlMs?: number;
  /** How long finished jobs and their history are kept (their `deleteTime`). @default 7 days */
  retentionMs?: number;
  /** Jobs read per query. @default 100 */
  batch?: number;
  /**
   * A firing more than this after its occurrence is recorded `late: true`. An on-time firing starts
   * up to one poll interval after its occurrence, plus the poll's own work. @default 2 × pollIntervalMs
   */
  lateToleranceMs?: number;
  /** An occurrence later than this misfired: the job's misfire policy applies (a job may set its own). @default 60000 */
  misfireThresholdMs?: number;
  /** A firing claimed longer ago than this, not settled and with no retry planned, is redone by the lease holder. @default leaseTtlMs */
  inFlightTimeoutMs?: number;
  /** Delay before retrying a firing whose attempt failed transiently; doubles per failed attempt. @default 1000 */
  retryDelayMs?: number;
  /** Cap on that delay. @default 60000 */
  maxRetryDelayMs?: number;
  /** Failed attempts after which a firing whose trigger still cannot be sent is FAILED (≈ 14 min with the defaults). @default 20 */
  maxFiringAttempts?: number;
}

/** What one poll did. */
export interface JobPollReport {
  leader: boolean;
  fired: number;
  failed: number;
  /** Firings taken up again from flight (a retry after a failed attempt, or a dead runner's) that ended fired or failed. */
  redone: number;
  /** Attempts that failed transiently and left their firing in flight for a retry. */
  retrying: number;
  /** Jobs moved past misfired occurrences by misfire policy `skip`. */
  skipped: number;
}

/** Default of {@link JobRunnerOptions.misfireThresholdMs}: Quartz's default misfire threshold. */
export const DEFAULT_MISFIRE_THRESHOLD_MS = 60_000;

const DAY_MS = 24 * 60 * 60 * 1000;
/** Bounds one poll, so a burst of due jobs (or a long catch-up) cannot starve the lease renewal. */
const MAX_BATCHES_PER_POLL = 10;

/**
 * Fires due jobs. It keeps nothing that matters in memory: every poll reads the due jobs from the
 * store, so after a restart, or when a standby takes the lease from a dead holder, the jobs are
 * rehydrated as they are — and occurrences due meanwhile fire late, each one while it is within
 * the misfire threshold, by the job's misfire policy beyond it.
 * One instance at a time holds the `job-runner` lease and fires; conditional claims make a
 * second runner harmless anyway.
 *
 * @example
 * ```ts
 * const runner = new JobRunner(new MongoJobStore(db), bus, systemClock, new LeaseRepository(db), logger, { instanceId });
 * runner.start();
 * // on shutdown
 * await runner.close();
 * ```
 */
export class JobRunner {
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<JobPollReport> | undefined;
  private closing: Promise<void> | undefined;
  private closed = false;
  private leader = false;
  private readonly ctx: FiringContext;
  private readonly counters = { polls: 0, fired: 0, failed: 0, redone: 0, lost: 0, retrying: 0, late: 0, skipped: 0 };

  constructor(
    private readonly store: JobStore,
    outbox: JobOutbox,
    private readonly clock: Clock,
    private readonly lease: JobLease,
    private readonly logger: Logger,
    private readonly options: JobRunnerOptions,
  ) {
    if (!options.instanceId) throw new Error('JobRunner needs an instanceId: it names the lease holder and the status entries');
    this.ctx = {
      store,
      outbox,
      logger,
      instanceId: options.instanceId,
      retentionMs: options.retentionMs ?? 7 * DAY_MS,
      rules: {
        lateToleranceMs: options.lateToleranceMs ?? 2 * this.interval,
        misfireThresholdMs: options.misfireThresholdMs ?? DEFAULT_MISFIRE_THRESHOLD_MS,
      },
      retry: {
        retryDelayMs: options.retryDelayMs ?? DEFAULT_FIRING_RETRY.retryDelayMs,
        maxRetryDelayMs: options.maxRetryDelayMs ?? DEFAULT_FIRING_RETRY.maxRetryDelayMs,
        maxFiringAttempts: options.maxFiringAttempts ?? DEFAULT_FIRING_RETRY.maxFiringAttempts,
      },
    };
    if (this.ctx.retry.maxFiringAttempts < 1) throw new Error(`JobRunner maxFiringAttempts must be at least 1 (got ${this.ctx.retry.maxFiringAttempts})`);
  }

  private get interval(): number {
    return this.options.pollIntervalMs ?? 1000;
  }

  private get leaseTtlMs(): number {
    return this.options.leaseTtlMs ?? 3 * this.interval;
  }

  /** Polls now and then every `pollIntervalMs`. */
  start(): void {
    if (this.interval > 0) {
      this.timer = setInterval(() => void this.poll(), this.interval);
      this.timer.unref();
    }
    void this.poll();
  }

  /** Counters for `/metrics`. */
  metrics(): Record<string, number> {
    return { ...this.counters, jobLeader: this.leader ? 1 : 0 };
  }

  /** One poll, if this instance holds (or takes) the lease. Never overlaps itself. */
  poll(): Promise<JobPollReport> {
    this.polling ??= this.pollOnce().finally(() => {
      this.polling = undefined;
    });
    return this.polling;
  }

  private async pollOnce(): Promise<JobPollReport> {
    const report: JobPollReport = { leader: false, fired: 0, failed: 0, redone: 0, retrying: 0, skipped: 0 };
    if (this.closed) return report;
    try {
      const now = new Date(this.clock.now());
      report.leader = await this.lease.acquire(JOB_RUNNER_LEASE, this.options.instanceId, now, this.leaseTtlMs);
      await this.noteLeadership(report.leader);
      if (!report.leader) return report;
      this.counters.polls += 1;
      const batch = this.options.batch ?? 100;
      const staleBefore = new Date(now.getTime() - (this.options.inFlightTimeoutMs ?? this.leaseTtlMs));
      for (const job of await this.store.findInFlightToRetry(now, staleBefore, batch)) {
        const outcome = await this.guarded(job.jobSpecificationKey, () => retryInFlightFiring(this.ctx, job, this.firingTime()));
        if (outcome.kind === 'fired' || outcome.kind === 'failed') {
          report.redone += 1;
          this.counters.redone += 1;
        }
        this.count(report, outcome);
      }
      // Each round takes one step of every due job; a job that fell behind (a takeover, a restart)
      // is due again after its step, with its next occurrence, so rounds go on while steps are taken.
      for (let round = 0; round < MAX_BATCHES_PER_POLL && !this.closed; round++) {
        const due = await this.store.findDue(now, batch);
        let stepped = false;
        for (const job of due) {
          if (this.closed) break;
          const outcome = await this.guarded(job.jobSpecificationKey, () => fireDueJob(this.ctx, job, this.firingTime()));
          stepped ||= outcome.kind === 'fired' || outcome.kind === 'failed' || outcome.kind === 'skipped';
          this.count(report, outcome);
        }
        if (!stepped) break;
      }
      this.logger.debug(report, 'job runner poll');
    } catch (e) {
      this.logger.warn({ err: ensureError(e) }, 'job runner poll failed; the next poll retries');
    }
    return report;
  }

  /**
   * The time a firing is planned, claimed and sent at: the clock read again for each firing, right
   * before its claim, never the poll's start. A poll's earlier firings and store reads take time (on
   * a loaded machine, seconds), and lateness, `late` and the misfire decision must count it.
   */
  private firingTime(): Date {
    return new Date(this.clock.now());
  }

  /** Logs when this instance takes or loses the lease: taking it means rehydrating every job from the store. */
  private async noteLeadership(leader: boolean): Promise<void> {
    if (leader === this.leader) return;
    this.leader = leader;
    if (leader) {
      const scheduled = await this.store.countScheduled();
      this.logger.info({ scheduled }, 'job runner holds the lease; rehydrated scheduled jobs from the store');
    } else {
      this.logger.info('job runner lost the lease; standing by');
    }
  }

  /** Runs one job's firing; an error is logged and the poll goes on with the other jobs. */
  private async guarded(key: string, run: () => Promise<FiringOutcome>): Promise<FiringOutcome> {
    try {
      return await run();
    } catch (e) {
      this.logger.warn({ err: ensureError(e), job: key }, 'firing a job failed; the next poll retries it');
      return { kind: 'lost' };
    }
  }

  private count(report: JobPollReport, outcome: FiringOutcome): void {
    if (outcome.kind === 'fired') report.fired += 1;
    if (outcome.kind === 'failed') report.failed += 1;
    if (outcome.kind === 'retrying') report.retrying += 1;
    if (outcome.kind === 'skipped') report.skipped += 1;
    if (outcome.kind === 'fired' || outcome.kind === 'failed' || outcome.kind === 'lost' || outcome.kind === 'retrying' || outcome.kind === 'skipped') this.counters[outcome.kind] += 1;
    if ((outcome.kind === 'fired' || outcome.kind === 'failed') && outcome.late) this.counters.late += 1;
  }

  /** Stops polling and gives the lease up so a standby takes over at once. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      if (this.timer) clearInterval(this.timer);
      await this.polling;
      if (this.leader) await this.lease.release(JOB_RUNNER_LEASE, this.options.instanceId).catch(() => undefined);
    })();
    return this.closing;
  }
}
