import { Worker } from 'bullmq';
import { createRedisConnection, type RedisConnection } from '@sas/client';
import { queueKeyPrefix } from '@sas/contracts';
import { waitFor } from './wait-for';

/** Options of {@link QueueCollector}. */
export interface QueueCollectorOptions {
  /** The stack's REDIS_URL (one Redis or a cluster); the collector opens (and closes) its own connection. */
  redisUrl: string;
  /** The stack's QUEUE_PREFIX; the queue's own hash tag is added as the services add it. */
  prefix: string;
  /** Queue to drain, e.g. the application's status queue or `alerts`. */
  queue: string;
}

/**
 * Drains a BullMQ queue into an array, so a test can assert on what the system sent: status
 * events on an application's reply queue, operator alerts. It consumes the jobs (a real
 * consumer, as the application would be) and keeps every job's `data` in arrival order.
 *
 * @example
 * ```ts
 * const statuses = new QueueCollector<StatusEvent>({ redisUrl: stack.env.REDIS_URL, prefix, queue: 'app.status' });
 * await statuses.start();
 * const seen = await statuses.waitForCount(3, 10_000);
 * await statuses.close();
 * ```
 */
export class QueueCollector<T = unknown> {
  /** Every job's `data`, in the order the worker processed them. */
  readonly messages: T[] = [];
  /** Errors the worker reported (lost connection, ...), kept rather than thrown so a test can assert on them. */
  readonly errors: Error[] = [];
  private worker: Worker | undefined;
  private connection: RedisConnection | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: QueueCollectorOptions) {}

  /** Starts consuming and resolves once the worker is connected. */
  async start(): Promise<void> {
    if (this.worker) throw new Error(`QueueCollector for '${this.options.queue}' is already started`);
    if (this.closing)
      throw new Error(`QueueCollector for '${this.options.queue}' is closed; create a new one`);
    const connection = createRedisConnection(this.options.redisUrl);
    // The worker reports the same errors below; without a listener ioredis would print them.
    connection.on('error', () => undefined);
    this.connection = connection;
    const worker = new Worker(
      this.options.queue,
      async (job) => {
        this.messages.push(job.data as T);
      },
      {
        connection,
        prefix: queueKeyPrefix(this.options.prefix, this.options.queue),
        removeOnComplete: { count: 1000 },
      },
    );
    // Without a listener an 'error' event (Redis restarted by a chaos test) would crash the test run.
    worker.on('error', (error) => this.errors.push(error));
    this.worker = worker;
    await worker.waitUntilReady();
  }

  /** Resolves with the messages once at least `count` arrived; the failure message shows what did. */
  async waitForCount(count: number, timeoutMs: number): Promise<T[]> {
    await waitFor(() => this.messages.length >= count, {
      timeoutMs,
      description: `${count} message(s) on queue '${this.options.queue}'`,
      diagnostics: () =>
        `${this.messages.length} message(s) so far: ${JSON.stringify(this.messages).slice(0, 2000)}`,
    });
    return [...this.messages];
  }

  /**
   * Stops consuming and closes its connections; safe to call more than once. A worker whose
   * connection went through a Redis restart can hang in a graceful close, so after `graceMs` it is
   * force-closed and disconnected: a test run must never be kept alive by a collector.
   */
  close(graceMs = 5000): Promise<void> {
    this.closing ??= this.closeWorker(graceMs);
    return this.closing;
  }

  private async closeWorker(graceMs: number): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    const closed = await Promise.race([worker.close().then(() => true), delay(graceMs).then(() => false)]);
    if (!closed) {
      await Promise.race([worker.close(true), delay(graceMs)]);
      await worker.disconnect().catch(() => undefined);
    }
    // BullMQ does not close a connection it was given.
    this.connection?.disconnect();
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
