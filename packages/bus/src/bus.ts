import { Queue } from 'bullmq';
import { Cluster } from 'ioredis';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { QUEUE_NAME_PATTERN, QueueNames, SCHEMA_VERSION, queueKeyPrefix, queuePrefixProblem, replyQueueClosedKey, type DeadLetterEntry } from '@sas/contracts';
import { StallBoard, type Clock, type RedisLivenessSettings } from '@sas/runtime';
import { DEFAULT_JOB_OPTIONS, DEFAULT_REDIS_LIVENESS, createRedisConnection, redisLivenessOptions, type RedisConnection } from '@sas/client';
import type { BusMetrics } from './bus-metrics';
import { logClusterNodeLoss } from './cluster-node-log';
import { Consumer } from './consumer';
import { CONSUMER_STALL_PREFIX, watchConsumer } from './consumer-watch';
import { QueueCache } from './queue-cache';
import { ReplicaWait, type ReplicaConfirmation } from './replica-wait';
import { RedisHeartbeat } from './redis-heartbeat';
import { handleBullErrorsForLife } from './lifelong-errors';
import { describeRedisTarget } from './redis-target-description';
import { withSendDeadline } from './send-deadline';
import type { ConsumerSpec } from './consumer-spec';
import type { DeadLetterInput, DeadLetterSink } from './dead-letter-sink';
import type { SendOptions } from './send-options';

/** Options of {@link Bus}. */
export interface BusOptions {
  /** One Redis (`redis://`, `rediss://`) or a Redis Cluster (`redis-cluster://`, `rediss-cluster://`); see `parseRedisUrl`. */
  redisUrl: string;
  /** The system's QUEUE_PREFIX; each queue adds its own hash tag to it (`queueKeyPrefix`). */
  prefix: string;
  instanceId: string;
  logger: Logger;
  clock: Clock;
  /** A send that has not reached Redis by then fails with a TransientError. @default 5000 */
  sendTimeoutMs?: number;
  /** Queue handles kept for sending to non-system queues (reply queues). @default 256 */
  queueCacheSize?: number;
  /** Where consumers' handled, retried and dead-lettered messages are counted. @default none */
  metrics?: BusMetrics;
  /** Bounds on each connection's silence (docs/liveness.md). @default DEFAULT_REDIS_LIVENESS, stallMs 3000 */
  liveness?: Partial<RedisLivenessSettings>;
  /** Where stalls are reported (shared with the store's watch, for `/readyz`). @default a board of its own */
  stalls?: StallBoard;
  /**
   * Redis Cluster only: how long {@link Bus.replicaCheck} waits for a replica to confirm a
   * delivery's sends (`WAIT 1 <ms>`). Below the connection's command bound, so the socket is not
   * dropped while the server holds the command. @default 1000, or half the command bound when that is less
   */
  replicaAckTimeoutMs?: number;
}

/** @see BusOptions.replicaAckTimeoutMs */
const DEFAULT_REPLICA_ACK_TIMEOUT_MS = 1_000;

/** Silence of a connection after which it counts as stalled. */
const DEFAULT_STALL_MS = 3_000;

/**
 * One service's view of the queues: sends to any queue, consumes with validation, dead-letters.
 * It owns one connection for producers and one per consumer (BullMQ blocks a worker's connection).
 *
 * @example
 * ```ts
 * const bus = new Bus({ redisUrl, prefix: 'sas', instanceId, logger, clock: systemClock });
 * bus.consume({ queue: QueueNames.submission, schema: SubmissionMessage, handle: (m) => submit(m) });
 * await bus.send(QueueNames.schedulerReady, { schemaVersion: 1, reason: 'submitted' });
 * ```
 */
export class Bus implements DeadLetterSink {
  private readonly producer: RedisConnection;
  private readonly queues: QueueCache<Queue>;
  private readonly sendTimeoutMs: number;
  private readonly consumers: Consumer<z.ZodTypeAny>[] = [];
  private readonly consumerConnections: RedisConnection[] = [];
  private readonly heartbeats: RedisHeartbeat[] = [];
  private readonly liveness: RedisLivenessSettings;
  private readonly stalls: StallBoard;
  private readonly replicaWait: ReplicaWait | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: BusOptions) {
    const prefixProblem = queuePrefixProblem(options.prefix);
    if (prefixProblem) throw new Error(prefixProblem);
    this.liveness = { ...DEFAULT_REDIS_LIVENESS, stallMs: DEFAULT_STALL_MS, ...options.liveness };
    this.stalls = options.stalls ?? new StallBoard(options.logger, options.clock);
    const replicaAckTimeoutMs = options.replicaAckTimeoutMs ?? Math.min(DEFAULT_REPLICA_ACK_TIMEOUT_MS, this.liveness.commandTimeoutMs / 2);
    if (!(replicaAckTimeoutMs > 0 && replicaAckTimeoutMs < this.liveness.commandTimeoutMs)) {
      throw new Error(`replicaAckTimeoutMs must be above 0 and below the command bound of ${this.liveness.commandTimeoutMs} ms (got ${replicaAckTimeoutMs})`);
    }
    this.producer = createRedisConnection(options.redisUrl, redisLivenessOptions('commands', this.liveness));
    this.sendTimeoutMs = options.sendTimeoutMs ?? 5_000;
    // Only a cluster has replicas the bus can know of; one Redis gets no WAIT at all.
    this.replicaWait = this.producer instanceof Cluster ? new ReplicaWait(this.producer, replicaAckTimeoutMs) : undefined;
    this.queues = new QueueCache(options.queueCacheSize ?? 256, (name) => {
      const queue = new Queue(name, { connection: this.producer, prefix: queueKeyPrefix(options.prefix, name) });
      // Its start waits on the producer; closed before that ends (a shutdown during start-up), it fails then.
      handleBullErrorsForLife(queue, (err) => options.logger.debug({ err: errorMessage(err), queue: name }, 'queue handle error (closing or reconnecting)'));
      return queue;
    });
    this.producer.on('error', (err) => options.logger.warn({ err: err.message }, 'redis connection error'));
    // Operators (and the chaos tests) see each outage and its end in the log.
    this.producer.on('reconnecting', () => options.logger.warn('redis connection lost; reconnecting'));
    this.producer.on('ready', () => options.logger.info('redis connection ready'));
    // Which Redis, once: a service left on the default 127.0.0.1:6379 by mistake says so.
    const target = describeRedisTarget(options.redisUrl);
    this.producer.once('ready', () =>
      options.logger.info(
        { ...target, queuePrefix: options.prefix, liveness: this.liveness },
        `connected to Redis at ${target.redis}${target.cluster ? ' (cluster)' : ''}, queue prefix '${options.prefix}'`,
      ),
    );
    this.watch(this.producer, 'redis:sends', 'the sender (queue handles)', { queue: '(sends)' });
    logClusterNodeLoss(this.producer, options.logger, { queue: '(sends)' });
  }

  /** True while the producer connection is up, no connection of this bus is stalled and no consumer is stuck. */
  isReady(): boolean {
    return this.producer.status === 'ready' && this.heartbeats.every((h) => !h.isStalled()) && !this.stalls.active().some((key) => key.startsWith(CONSUMER_STALL_PREFIX));
  }

  /**
   * What keeps {@link isReady} false, in words (empty when it is true): the sender's connection not
   * up, a stalled connection, a stuck consumer. For the line a service logs while it waits to be ready.
   */
  notReadyReasons(): string[] {
    const reasons: string[] = [];
    if (this.producer.status !== 'ready') reasons.push(`Redis at ${describeRedisTarget(this.options.redisUrl).redis} (the sender's connection is ${this.producer.status})`);
    if (this.heartbeats.some((h) => h.isStalled())) reasons.push('a Redis connection that has gone silent');
    for (const key of this.stalls.active().filter((k) => k.startsWith(CONSUMER_STALL_PREFIX))) reasons.push(`a stuck consumer (${key})`);
    return reasons;
  }

  private watch(connection: RedisConnection, key: string, what: string, fields: Record<string, unknown>, alsoDrop?: () => readonly RedisConnection[]): void {
    this.heartbeats.push(
      new RedisHeartbeat({ connection, key, what, fields, board: this.stalls, clock: this.options.clock, stallMs: this.liveness.stallMs, ...(alsoDrop ? { alsoDrop } : {}) }),
    );
  }

  /**
   * Adds one message to a queue. Rejects when Redis is unreachable, at the latest after
   * `sendTimeoutMs` (a TransientError); callers decide to retry.
   */
  async send(queue: string, data: unknown, options: SendOptions = {}): Promise<void> {
    assertQueueName(queue);
    const jobOptions = {
      ...DEFAULT_JOB_OPTIONS,
      ...(options.jobId ? { jobId: options.jobId } : {}),
      ...(options.delayMs ? { delay: options.delayMs } : {}),
    };
    await withSendDeadline(
      this.queues.with(queue, (q) => q.add(queue, data, jobOptions)),
      this.sendTimeoutMs,
      queue,
    );
  }

  /**
   * Called before sends to `queues` that must survive a Redis Cluster failover (an outbox's status
   * events): afterwards, `confirmed()` waits until a replica of each master written to holds them
   * (see {@link ReplicaWait}), false when none did within `replicaAckTimeoutMs`. Undefined with one
   * Redis, or where the masters have no replica: their acknowledgement is all there is to have.
   */
  replicaCheck(queues: readonly string[]): ReplicaConfirmation | undefined {
    return this.replicaWait?.begin(queues.map((queue) => `${queueKeyPrefix(this.options.prefix, queue)}:${queue}:id`));
  }

  /**
   * Sends an answer to a reply queue that may be a caller's private one (`requestReply`): if that
   * caller has stopped waiting and removed its queue, the answer is dropped instead of creating
   * the queue again for nobody, and a queue re-created while the answer was on its way is removed.
   * Answers to ordinary queues (an application's own) are sent as by {@link send}.
   */
  async sendReply(queue: string, data: unknown, options: SendOptions = {}): Promise<void> {
    const { logger } = this.options;
    if (await this.isReplyQueueClosed(queue)) {
      logger.info({ queue }, 'answer dropped: its caller stopped waiting and removed the reply queue');
      return;
    }
    await this.send(queue, data, options);
    // The caller may have closed the queue between the check and the send: then the send created
    // it again, and nobody else will remove it.
    if (await this.isReplyQueueClosed(queue)) {
      logger.info({ queue }, 'answer arrived after its caller stopped waiting; removing the reply queue');
      await this.queues.with(queue, (q) => q.obliterate({ force: true })).catch(() => undefined);
    }
  }

  /** True when `queue` was a private reply queue whose caller has stopped waiting (see `replyQueueClosedKey`). */
  private async isReplyQueueClosed(queue: string): Promise<boolean> {
    return (await this.producer.exists(replyQueueClosedKey(this.options.prefix, queue))) === 1;
  }

  /** Starts consuming a queue; the consumer is closed with the bus. */
  consume<S extends z.ZodTypeAny>(spec: ConsumerSpec<S>): Consumer<S> {
    // Checked before a connection is opened, so a bad name neither leaks one nor gets BullMQ's terser error.
    assertQueueName(spec.queue);
    // BullMQ opens the worker's blocking connection as a duplicate of this one, with the same bounds.
    const connection = createRedisConnection(this.options.redisUrl, redisLivenessOptions('consumer', this.liveness));
    connection.on('error', (err) => this.options.logger.debug({ err: err.message, queue: spec.queue }, 'consumer redis error'));
    this.consumerConnections.push(connection);
    logClusterNodeLoss(connection, this.options.logger, { queue: spec.queue });
    const blocking = keepDuplicates(connection, (copy) =>
      // BullMQ stops listening to its blocking connection when the worker closes; errors after that are the bus's.
      copy.on('error', (err) => this.options.logger.debug({ err: err.message, queue: spec.queue }, 'consumer redis error (blocking connection)')),
    );
    this.watch(connection, `redis:${spec.queue}`, `consumer of queue '${spec.queue}'`, { queue: spec.queue }, blocking);
    const consumer = new Consumer(spec, connection, this.options.prefix, this, this.options.logger.child({ queue: spec.queue }), this.options.metrics);
    this.consumers.push(consumer as unknown as Consumer<z.ZodTypeAny>);
    watchConsumer(consumer, { queueName: spec.queue, queue: this.queue(spec.queue), board: this.stalls, clock: this.options.clock, logger: this.options.logger, boundMs: 3 * this.liveness.stallMs });
    return consumer;
  }

  async deadLetter(input: DeadLetterInput): Promise<void> {
    const entry: DeadLetterEntry = {
      schemaVersion: SCHEMA_VERSION,
      queue: input.queue,
      rejectedBy: this.options.instanceId,
      reason: input.reason,
      issues: [...input.issues],
      original: input.original,
      at: this.options.clock.now(),
    };
    // Dead letters are kept until an operator removes them.
    await withSendDeadline(
      this.queue(QueueNames.deadLetter).add('dead-letter', entry, { removeOnComplete: false, removeOnFail: false }),
      this.sendTimeoutMs,
      QueueNames.deadLetter,
    );
    // Counted once written: here every dead letter passes, the consumers' and the handlers' own.
    this.options.metrics?.deadLettered(input.queue, input.kind ?? 'refused');
  }

  /** A queue handle for tools that inspect queues (dashboard, tests); kept until the bus closes. */
  queue(name: string): Queue {
    assertQueueName(name);
    return this.queues.pin(name);
  }

  /** Queue handles held for sending, for `/metrics` and tests. */
  queueHandles(): number {
    return this.queues.size();
  }

  /** Closes consumers first (finishing in-flight jobs), then queues and connections. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const heartbeat of this.heartbeats) heartbeat.stop();
      this.replicaWait?.close();
      await Promise.allSettled(this.consumers.map((c) => c.close()));
      await this.queues.closeAll();
      // QUIT waits for a connection that is not up (Redis away): such a one is dropped instead.
      await Promise.allSettled(
        [...this.consumerConnections, this.producer].map((c) => (c.status === 'ready' ? c.quit().catch(() => c.disconnect()) : c.disconnect())),
      );
    })();
    return this.closing;
  }
}

/**
 * Keeps the connections made as duplicates of `connection`: BullMQ opens a worker's blocking
 * connection as `connection.duplicate()` (its connections guide), and that one cannot be pinged
 * while it waits in BZPOPMIN, so its socket is dropped together with the pinged one when the link
 * goes silent (see {@link RedisHeartbeat}).
 */
function keepDuplicates(connection: RedisConnection, onDuplicate: (copy: RedisConnection) => void): () => readonly RedisConnection[] {
  const duplicates: RedisConnection[] = [];
  const duplicate = connection.duplicate.bind(connection) as (...args: unknown[]) => RedisConnection;
  (connection as { duplicate: (...args: unknown[]) => RedisConnection }).duplicate = (...args: unknown[]) => {
    const copy = duplicate(...args);
    onDuplicate(copy);
    duplicates.push(copy);
    return copy;
  };
  return () => duplicates;
}

function assertQueueName(name: string): void {
  if (!QUEUE_NAME_PATTERN.test(name)) {
    throw new Error(`Queue name '${name}' is not valid: use letters, digits, '.', '_' and '-' only`);
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
