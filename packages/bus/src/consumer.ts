import { DelayedError, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { describeIssues, queueKeyPrefix } from '@sas/contracts';
import type { RedisConnection } from '@sas/client';
import { ensureError } from '@sas/runtime';
import { defaultLockFor, type ConsumerLock } from './consumer-lock';
import { handleBullErrorsForLife } from './lifelong-errors';
import type { BusMetrics, DeadLetterKind } from './bus-metrics';
import type { ConsumerSpec } from './consumer-spec';
import type { DeadLetterSink } from './dead-letter-sink';
import { DEFAULT_RETRY_POLICY, decideRetry, infrastructureFault, storeFaultDelayMs, type RetryPolicy } from './retry-policy';

/** Effectively unbounded: see the worker options. */
const STALLS_LEFT_TO_THE_RETRY_POLICY = 1_000;

/**
 * Deliveries of a message that ended in a transient MongoDB or Redis fault, kept in the job's
 * progress so that they survive redelivery and are not counted against its {@link RetryPolicy}.
 * (The field keeps its first name, `storeFaults`, for messages already in flight.)
 */
interface StoreFaultProgress {
  storeFaults: number;
  lastStoreFault: string;
}

function storeFaultsOf(job: Job): number {
  const progress = job.progress as Partial<StoreFaultProgress> | number | undefined;
  return typeof progress === 'object' && progress !== null && typeof progress.storeFaults === 'number' ? progress.storeFaults : 0;
}

/**
 * A BullMQ worker that validates each message and never lets a bad one throw out of its loop:
 * invalid messages are dead-lettered at once (retrying cannot fix them); a handler that keeps
 * failing is retried with backoff under the consumer's own {@link RetryPolicy} and dead-lettered
 * after its last delivery.
 *
 * Retries are counted in deliveries (BullMQ's `attemptsStarted`), so a delivery cut short by a
 * crash counts too, and they do not depend on the `attempts` the producer set: an order added
 * with a plain `queue.add` gets the same retries as one the bus sent. A delivery that failed on a
 * transient MongoDB fault (a primary step-down, an election, the network: `mongoTransientReason`)
 * is not counted: such a message is retried for as long as the fault lasts and never dead-lettered.
 * A transient Redis fault in the handler (a send that met a Redis Cluster failover or a Redis
 * restart: `redisTransientReason`) is treated the same way (decision 56).
 */
export class Consumer<S extends z.ZodTypeAny> {
  private worker: Worker;
  private readonly startWorker: () => Worker;
  private readonly retry: RetryPolicy;
  private closing: Promise<void> | undefined;
  private handled = 0;
  private rejected = 0;
  private retried = 0;

  constructor(
    private readonly spec: ConsumerSpec<S>,
    connection: RedisConnection,
    /** The system's QUEUE_PREFIX; the queue's own hash tag is added here. */
    prefix: string,
    private readonly deadLetters: DeadLetterSink,
    private readonly logger: Logger,
    private readonly metrics?: Pick<BusMetrics, 'handled' | 'retried'>,
  ) {
    this.retry = { ...DEFAULT_RETRY_POLICY, ...spec.retry };
    const lock: ConsumerLock = { ...defaultLockFor(spec.queue), ...spec.lock };
    this.startWorker = () => {
      const worker = new Worker(spec.queue, (job, token) => this.process(job, token), {
        connection,
        prefix: queueKeyPrefix(prefix, spec.queue),
        concurrency: spec.concurrency ?? 8,
        autorun: true,
        lockDuration: lock.lockDurationMs,
        stalledInterval: lock.stalledIntervalMs,
        // BullMQ would move a job that stalled more than this to the failed set without telling the
        // worker; the retry policy below bounds deliveries instead, crashed ones included.
        maxStalledCount: STALLS_LEFT_TO_THE_RETRY_POLICY,
      });
      worker.on('failed', (job, err) => {
        void this.onFailed(job, err);
      });
      worker.on('error', (err) => this.logger.warn({ err, queue: spec.queue }, 'worker error (will retry)'));
      // After close BullMQ listens to its connections no more, yet a start still pending on them fails when they close.
      handleBullErrorsForLife(worker, (err) => this.logger.debug({ err: err instanceof Error ? err.message : String(err), queue: spec.queue }, 'worker connection error after close'));
      return worker;
    };
    this.worker = this.startWorker();
  }

  /** Counters for `/metrics`. */
  stats(): { handled: number; rejected: number; retried: number } {
    return { handled: this.handled, rejected: this.rejected, retried: this.retried };
  }

  isRunning(): boolean {
    return this.worker.isRunning();
  }

  /** The BullMQ worker now in use, for the bus's liveness watch (consumer-watch.ts). */
  get bullWorker(): Worker {
    return this.worker;
  }

  /**
   * Replaces a worker whose loop is stuck with a new one on the same connection, and closes the old
   * one without waiting for it (its loop may never return). Only for a worker that holds no job
   * (the watch checks), so no job's lock is abandoned. Not after {@link close}.
   */
  restartWorker(): Worker {
    if (this.closing) return this.worker;
    const stuck = this.worker;
    this.worker = this.startWorker();
    void stuck.close(true).catch(() => undefined);
    return this.worker;
  }

  private async process(job: Job, token: string | undefined): Promise<void> {
    const parsed = this.spec.schema.safeParse(job.data);
    if (!parsed.success) {
      const issues = describeIssues(parsed.error);
      await this.reject(job, `invalid message on ${this.spec.queue}`, issues, 'invalid');
      return; // complete the job: the message lives on in the dead-letter queue
    }
    // attemptsStarted counts this delivery too (BullMQ increments it when the job becomes active).
    const storeFaults = storeFaultsOf(job);
    const delivery = Math.max(1, job.attemptsStarted - storeFaults);
    if (delivery > this.retry.attempts) {
      // Earlier deliveries ended without an outcome: the consumer died each time (a message that
      // crashes its service, or a service killed over and over). Keep it, and stop the loop.
      await this.reject(job, `delivered ${delivery} times without finishing (its consumer stopped each time)`, [], 'redelivered');
      return;
    }
    try {
      await this.spec.handle(parsed.data, { jobId: job.id ?? '', queue: this.spec.queue, attemptsMade: delivery - 1 });
      this.handled += 1;
      this.metrics?.handled(this.spec.queue);
    } catch (e) {
      const err = ensureError(e);
      const fault = infrastructureFault(err);
      if (fault) return this.retryAfterStoreFault(job, token, err, fault.reason, storeFaults + 1, fault.of);
      const decision = decideRetry(this.retry, delivery, err);
      if (!decision.retry) {
        this.logger.warn({ err, jobId: job.id, delivery }, 'handler failed on its last delivery');
        await this.reject(job, `handler failed ${delivery} times: ${err.message}`, [], 'handler-failed');
        return; // complete the job: the message lives on in the dead-letter queue
      }
      this.logger.warn({ err, jobId: job.id, delivery, retryInMs: decision.delayMs }, 'handler failed; will retry');
      // If this move fails too (Redis is down), the original error fails the job; its lock then
      // lapses and the stalled check hands it to a consumer again, so it is not lost.
      await job.moveToDelayed(Date.now() + decision.delayMs, token).catch(() => {
        throw err;
      });
      this.retried += 1;
      this.metrics?.retried(this.spec.queue);
      throw new DelayedError();
    }
  }

  /** Puts the message back for later without spending a delivery: MongoDB or Redis, not the message, failed. */
  private async retryAfterStoreFault(job: Job, token: string | undefined, err: Error, reason: string, storeFaults: number, of: 'mongo' | 'redis' = 'mongo'): Promise<never> {
    const delayMs = storeFaultDelayMs(this.retry, storeFaults);
    const what =
      of === 'mongo'
        ? 'MongoDB cannot take the operation now (step-down, election or network)'
        : 'Redis cannot take the command now (restart, lost connection or cluster failover)';
    this.logger.warn({ err, jobId: job.id, reason, storeFaults, retryInMs: delayMs }, `${what}; will retry, not counted against the message`);
    // Counted before the move: if the move then fails, the redelivery after the stalled check is not counted either.
    const progress: StoreFaultProgress = { storeFaults, lastStoreFault: reason };
    await job.updateProgress(progress).catch(() => {
      throw err;
    });
    await job.moveToDelayed(Date.now() + delayMs, token).catch(() => {
      throw err;
    });
    this.retried += 1;
    this.metrics?.retried(this.spec.queue);
    throw new DelayedError();
  }

  /**
   * BullMQ failed a job itself (our handler's move to delayed failed, e.g. Redis went away). If it
   * ended in the failed set rather than being retried, it is dead-lettered, so it is kept where
   * operators look and its sender hears of it.
   */
  private async onFailed(job: Job | undefined, err: Error): Promise<void> {
    if (!job || err instanceof DelayedError) return;
    const state = await job.getState().catch(() => 'unknown');
    this.logger.warn({ err, queue: this.spec.queue, jobId: job.id, state }, 'message failed');
    if (state !== 'failed') return; // BullMQ will deliver it again
    try {
      await this.reject(job, `handler failed: ${err.message}`, [], 'job-failed');
    } catch (e) {
      this.logger.error({ err: ensureError(e), jobId: job.id }, 'could not dead-letter a failed job; it stays in the failed set');
    }
  }

  private async reject(job: Job, reason: string, issues: string[], kind: DeadLetterKind): Promise<void> {
    this.rejected += 1;
    this.logger.warn({ queue: this.spec.queue, jobId: job.id, reason, issues }, 'message rejected to dead-letter queue');
    await this.deadLetters.deadLetter({ queue: this.spec.queue, reason, kind, issues, original: job.data });
    if (this.spec.onRejected) {
      try {
        await this.spec.onRejected(job.data, reason, issues);
      } catch (e) {
        this.logger.warn({ err: ensureError(e) }, 'could not answer the sender of a rejected message');
      }
    }
  }

  /** Stops consuming; waits for in-flight handlers unless `force` (then their messages stall and are taken back). */
  close(force = false): Promise<void> {
    this.closing ??= this.worker.close(force);
    return this.closing;
  }
}
