import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { describeIssues } from '@sas/contracts';
import { ensureError } from '@sas/runtime';
import type { ConsumerSpec } from './consumer-spec';
import type { DeadLetterSink } from './dead-letter-sink';

/**
 * A BullMQ worker that validates each message and never lets a bad one throw out of its loop:
 * invalid messages are dead-lettered at once (retrying cannot fix them); a handler that keeps
 * failing is retried with backoff and dead-lettered after its last attempt.
 */
export class Consumer<S extends z.ZodTypeAny> {
  private readonly worker: Worker;
  private closing: Promise<void> | undefined;
  private handled = 0;
  private rejected = 0;

  constructor(
    private readonly spec: ConsumerSpec<S>,
    connection: Redis,
    prefix: string,
    private readonly deadLetters: DeadLetterSink,
    private readonly logger: Logger,
  ) {
    this.worker = new Worker(spec.queue, (job) => this.process(job), {
      connection,
      prefix,
      concurrency: spec.concurrency ?? 8,
      autorun: true,
    });
    this.worker.on('failed', (job, err) => {
      void this.onFailed(job, err);
    });
    this.worker.on('error', (err) => this.logger.warn({ err, queue: spec.queue }, 'worker error (will retry)'));
  }

  /** Counters for `/metrics`. */
  stats(): { handled: number; rejected: number } {
    return { handled: this.handled, rejected: this.rejected };
  }

  isRunning(): boolean {
    return this.worker.isRunning();
  }

  private async process(job: Job): Promise<void> {
    const parsed = this.spec.schema.safeParse(job.data);
    if (!parsed.success) {
      const issues = describeIssues(parsed.error);
      await this.reject(job, `invalid message on ${this.spec.queue}`, issues);
      return; // complete the job: the message lives on in the dead-letter queue
    }
    await this.spec.handle(parsed.data, { jobId: job.id ?? '', queue: this.spec.queue, attemptsMade: job.attemptsMade });
    this.handled += 1;
  }

  private async onFailed(job: Job | undefined, err: Error): Promise<void> {
    if (!job) return;
    const attempts = job.opts.attempts ?? 1;
    const final = job.attemptsMade >= attempts;
    this.logger.warn({ err, queue: this.spec.queue, jobId: job.id, attemptsMade: job.attemptsMade, final }, 'handler failed');
    if (!final) return;
    try {
      await this.reject(job, `handler failed ${job.attemptsMade} times: ${err.message}`, []);
    } catch (e) {
      this.logger.error({ err: ensureError(e), jobId: job.id }, 'could not dead-letter a failed job; it stays in the failed set');
    }
  }

  private async reject(job: Job, reason: string, issues: string[]): Promise<void> {
    this.rejected += 1;
    this.logger.warn({ queue: this.spec.queue, jobId: job.id, reason, issues }, 'message rejected to dead-letter queue');
    await this.deadLetters.deadLetter({ queue: this.spec.queue, reason, issues, original: job.data });
    if (this.spec.onRejected) {
      try {
        await this.spec.onRejected(job.data, reason, issues);
      } catch (e) {
        this.logger.warn({ err: ensureError(e) }, 'could not answer the sender of a rejected message');
      }
    }
  }

  close(): Promise<void> {
    this.closing ??= this.worker.close();
    return this.closing;
  }
}
