import type { z } from 'zod';
import { DEFAULT_RETRY_POLICY, decideRetry, defaultLockFor, infrastructureFault, storeFaultDelayMs, type ConsumerSpec, type DeadLetterInput, type RetryPolicy } from '@sas/bus';
import { describeIssues } from '@sas/contracts';
import { ensureError } from '@sas/runtime';
import type { SimActor } from './sim-actor';
import type { SimWorld } from './sim-world';

/** How long a completed job keeps its id (BullMQ `removeOnComplete.age` in DEFAULT_JOB_OPTIONS). */
const COMPLETED_KEPT_MS = 3_600_000;

interface SimJob {
  readonly seq: number;
  readonly queue: string;
  readonly id: string;
  readonly data: unknown;
  attemptsStarted: number;
  /** Deliveries that ended in a transient store fault: not counted against the retry policy, as the consumer's. */
  storeFaults: number;
  state: 'waiting' | 'delayed' | 'active' | 'completed';
  holder: SimConsumer | null;
  completedAt: number;
}

interface SimConsumer {
  readonly actor: SimActor;
  readonly spec: ConsumerSpec<z.ZodTypeAny>;
  readonly concurrency: number;
  readonly retry: RetryPolicy;
  readonly lockMs: number;
  readonly stalledCheckMs: number;
  active: number;
  closed: boolean;
}

/** A message that ended in the dead-letter queue. */
export interface SimDeadLetter extends DeadLetterInput {
  at: number;
}

/** Options of one send, as the bus's. */
export interface SimSendOptions {
  jobId?: string;
  delayMs?: number;
}

/**
 * The queues, as BullMQ with the bus's consumer on top behaves, on virtual time: a message is
 * serialised as JSON; a job id already present (or completed less than an hour ago) drops the
 * second add; each queue hands its waiting messages out first in, first out to free consumers,
 * chosen at random among every live instance; a handler that throws is retried with the
 * consumer's {@link RetryPolicy} and dead-lettered after its last delivery, except after a
 * transient store or queue fault, which is retried without being counted (as the consumer does); an invalid message is
 * dead-lettered at once. A message whose consumer crashed (or whose acknowledgement was lost)
 * stays active until its lock lapses, then waits again: delivered at least once, never dropped.
 */
export class SimBus {
  private readonly waiting = new Map<string, SimJob[]>();
  private readonly byId = new Map<string, SimJob>();
  /** Consumers by queue, each list in the order they started (the order a random pick sees). */
  private readonly consumers = new Map<string, SimConsumer[]>();
  private readonly dead: SimDeadLetter[] = [];
  private seq = 0;
  private dirty = false;
  /** Jobs not completed (waiting, delayed or active): read at every rest point, so kept as a count. */
  private open = 0;

  constructor(private readonly world: SimWorld) {}

  /** Where `actor` sends: each send is an awaited call that can fail or crash its sender. */
  sender(actor: SimActor): { send(queue: string, message: unknown, options?: SimSendOptions): Promise<void> } {
    return {
      send: (queue, message, options = {}) =>
        this.world.io(actor, 'bus', this.world.tracing ? `send ${queue} ${options.jobId ?? ''}` : 'send', () => this.add(queue, message, options)),
    };
  }

  /** Where `actor` dead-letters. */
  deadLetterSink(actor: SimActor): { deadLetter(input: DeadLetterInput): Promise<void> } {
    return { deadLetter: (input) => this.world.io(actor, 'bus', `dead-letter ${input.queue}`, () => void this.dead.push({ ...input, at: this.world.clock.now() })) };
  }

  deadLetters(): readonly SimDeadLetter[] {
    return this.dead;
  }

  /** Starts consuming `spec.queue` as `actor`; the consumer dies with the actor. */
  consume<S extends z.ZodTypeAny>(actor: SimActor, spec: ConsumerSpec<S>): { isRunning(): boolean; stats(): { handled: number; rejected: number; retried: number }; close(): Promise<void> } {
    const lock = { ...defaultLockFor(spec.queue), ...spec.lock };
    const consumer: SimConsumer = {
      actor,
      spec: spec as unknown as ConsumerSpec<z.ZodTypeAny>,
      concurrency: spec.concurrency ?? 8,
      retry: { ...DEFAULT_RETRY_POLICY, ...spec.retry },
      lockMs: lock.lockDurationMs,
      stalledCheckMs: lock.stalledIntervalMs,
      active: 0,
      closed: false,
    };
    const ofQueue = this.consumers.get(spec.queue);
    if (ofQueue) ofQueue.push(consumer);
    else this.consumers.set(spec.queue, [consumer]);
    actor.onCrash(() => this.stallJobsOf(consumer));
    this.dirty = true;
    return {
      isRunning: () => actor.alive && !consumer.closed,
      stats: () => ({ handled: 0, rejected: 0, retried: 0 }),
      close: async () => {
        consumer.closed = true;
      },
    };
  }

  /** Messages not yet handled to the end (waiting, delayed or active), by queue. */
  unfinished(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const job of this.byId.values()) if (job.state !== 'completed') counts.set(job.queue, (counts.get(job.queue) ?? 0) + 1);
    return counts;
  }

  /** Whether any message is not yet handled to the end; cheap, for the settle check. */
  hasUnfinished(): boolean {
    return this.open > 0;
  }

  /** Hands waiting messages to free live consumers; the world calls it before each step. */
  pump(): void {
    if (!this.dirty) return;
    this.dirty = false;
    for (const [queue, jobs] of this.waiting) {
      const ofQueue = this.consumers.get(queue) ?? [];
      while (jobs.length > 0) {
        const free = ofQueue.filter((c) => c.actor.alive && !c.closed && c.active < c.concurrency);
        if (free.length === 0) break;
        const consumer = free.length === 1 ? (free[0] as SimConsumer) : this.world.rng.pick(free);
        const job = jobs.shift() as SimJob;
        job.state = 'active';
        job.holder = consumer;
        job.attemptsStarted += 1;
        consumer.active += 1;
        void this.process(job, consumer);
      }
    }
    for (const [queue, jobs] of this.waiting) if (jobs.length === 0) this.waiting.delete(queue);
  }

  private add(queue: string, message: unknown, options: SimSendOptions): void {
    if (options.jobId !== undefined && options.jobId.includes(':')) throw new Error(`Custom Id cannot contain : (job id '${options.jobId}' on ${queue})`);
    const id = options.jobId ?? `auto-${this.seq + 1}`;
    const key = `${queue}\u0000${id}`;
    const existing = this.byId.get(key);
    if (existing && !(existing.state === 'completed' && this.world.clock.now() - existing.completedAt > COMPLETED_KEPT_MS)) return;
    const job: SimJob = { seq: ++this.seq, queue, id, data: JSON.parse(JSON.stringify(message)) as unknown, attemptsStarted: 0, storeFaults: 0, state: 'waiting', holder: null, completedAt: 0 };
    this.byId.set(key, job);
    this.open += 1;
    if (options.delayMs && options.delayMs > 0) this.delay(job, options.delayMs);
    else this.enqueue(job);
  }

  private enqueue(job: SimJob): void {
    job.state = 'waiting';
    job.holder = null;
    const list = this.waiting.get(job.queue) ?? [];
    list.push(job);
    this.waiting.set(job.queue, list);
    this.dirty = true;
  }

  private delay(job: SimJob, delayMs: number): void {
    job.state = 'delayed';
    job.holder = null;
    this.world.clock.schedule(delayMs, null, () => this.enqueue(job));
  }

  /** As the bus's Consumer.process, with every Redis step an awaited call of the consumer's actor. */
  private async process(job: SimJob, consumer: SimConsumer): Promise<void> {
    const { actor, spec } = consumer;
    const delivery = job.attemptsStarted - job.storeFaults;
    const slot = { freed: false };
    try {
      const parsed = spec.schema.safeParse(job.data);
      if (!parsed.success) {
        await this.reject(job, consumer, `invalid message on ${spec.queue}`, describeIssues(parsed.error));
      } else if (delivery > consumer.retry.attempts) {
        await this.reject(job, consumer, `delivered ${delivery} times without finishing (its consumer stopped each time)`, []);
      } else {
        let failure: Error | undefined;
        try {
          await spec.handle(parsed.data, { jobId: job.id, queue: spec.queue, attemptsMade: delivery - 1 });
        } catch (e) {
          failure = ensureError(e);
        }
        // As the consumer: a MongoDB or Redis fault is the infrastructure's, not the message's.
        const fault = failure && infrastructureFault(failure);
        if (failure && fault) {
          const delayMs = storeFaultDelayMs(consumer.retry, job.storeFaults + 1);
          this.world.trace(`${actor.name} handler of ${spec.queue} ${job.id} hit a ${fault.of} fault (${failure.message}); retry in ${delayMs} ms, not counted`);
          await this.world.io(actor, 'bus', `retry ${spec.queue}`, () => {
            job.storeFaults += 1;
            this.release(job, consumer, slot, () => this.delay(job, delayMs));
          });
          return;
        }
        if (failure) {
          const decision = decideRetry(consumer.retry, delivery, failure);
          if (decision.retry) {
            this.world.trace(`${actor.name} handler of ${spec.queue} ${job.id} threw (${failure.message}); retry in ${decision.delayMs} ms`);
            await this.world.io(actor, 'bus', `retry ${spec.queue}`, () => this.release(job, consumer, slot, () => this.delay(job, decision.delayMs)));
            return;
          }
          await this.reject(job, consumer, `handler failed ${delivery} times: ${failure.message}`, []);
        }
      }
      await this.world.io(actor, 'bus', `ack ${spec.queue}`, () => this.release(job, consumer, slot, () => this.complete(job)));
    } catch {
      // Redis failed under the acknowledgement or the move: the job keeps its lock until it lapses,
      // then the stalled check hands it out again.
      if (!slot.freed) this.freeSlot(consumer, slot);
      this.stallLater(job, consumer);
    }
  }

  private async reject(job: SimJob, consumer: SimConsumer, reason: string, issues: readonly string[]): Promise<void> {
    await this.deadLetterSink(consumer.actor).deadLetter({ queue: consumer.spec.queue, reason, issues: [...issues], original: job.data });
    if (consumer.spec.onRejected) {
      try {
        await consumer.spec.onRejected(job.data, reason, issues);
      } catch {
        // As the bus: the sender may not be reachable; the message is kept in the dead-letter queue.
      }
    }
  }

  /** The consumer's slot frees and the job moves on, if it is still this consumer's. */
  private release(job: SimJob, consumer: SimConsumer, slot: { freed: boolean }, then: () => void): void {
    this.freeSlot(consumer, slot);
    if (job.holder === consumer && job.state === 'active') then();
  }

  private freeSlot(consumer: SimConsumer, slot: { freed: boolean }): void {
    slot.freed = true;
    consumer.active -= 1;
    this.dirty = true;
  }

  private complete(job: SimJob): void {
    if (job.state !== 'completed') this.open -= 1;
    job.state = 'completed';
    job.holder = null;
    job.completedAt = this.world.clock.now();
  }

  private stallJobsOf(consumer: SimConsumer): void {
    for (const job of this.byId.values()) if (job.holder === consumer && job.state === 'active') this.stallLater(job, consumer);
  }

  /** After the lock lapses and a stalled check runs, a job still held by `consumer` waits again. */
  private stallLater(job: SimJob, consumer: SimConsumer): void {
    const after = consumer.lockMs + this.world.rng.int(0, consumer.stalledCheckMs);
    this.world.clock.schedule(after, null, () => {
      if (job.holder === consumer && job.state === 'active') {
        this.world.trace(`stalled ${job.queue} ${job.id} back to waiting (its consumer ${consumer.actor.name} ${consumer.actor.alive ? 'lost its acknowledgement' : 'died'})`);
        this.enqueue(job);
      }
    });
  }
}
