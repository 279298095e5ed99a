import { Worker, type Job } from 'bullmq';
import { StatusEvent, describeIssues, queueKeyPrefix } from '@sas/contracts';
import type { RedisConnection } from './redis-connection';

/** Receives status events; `undefined` means the stream closed and nothing more will come. */
export type StatusListener = (event: StatusEvent | undefined) => void;

/** Options of {@link StatusStream}. */
export interface StatusStreamOptions {
  /** A connection the stream may block on; the stream does not close it. */
  connection: RedisConnection;
  /** The system's QUEUE_PREFIX. */
  prefix: string;
  queue: string;
  /** How many event ids are remembered to drop repeats. */
  dedupWindow: number;
  /** How many orders' events are kept for late `waitFor` / `statuses` calls. */
  historyLimit: number;
  onInvalidStatus: (raw: unknown, issues: readonly string[]) => void;
  onError: (error: Error) => void;
}

/**
 * The application's status queue, consumed once, each event handed on once. Delivery is at least
 * once: a status event is recognised by its `eventId` (the same on every redelivery, see the
 * status events in docs/reference/status-events.md), or by its BullMQ job id when it has none (events sent before eventId
 * existed, and `Duplicate`/`Rejected` answers, which are sent once). One consumer (concurrency 1),
 * so events are handed on in the order they were queued.
 */
export class StatusStream {
  private readonly seen = new Set<string>();
  private readonly history = new Map<string, StatusEvent[]>();
  private readonly byOrder = new Map<string, Set<StatusListener>>();
  private readonly everyOrder = new Set<StatusListener>();
  private worker: Worker | undefined;
  private starting: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: StatusStreamOptions) {}

  /** Starts consuming; resolves once the consumer is connected. Idempotent. */
  start(): Promise<void> {
    this.starting ??= (async () => {
      const { connection, prefix, queue } = this.options;
      this.worker = new Worker(queue, (job) => this.receive(job), { connection, prefix: queueKeyPrefix(prefix, queue), concurrency: 1 });
      // A Worker without an 'error' listener would throw the error out of the event emitter.
      this.worker.on('error', (err) => this.options.onError(err));
      await this.worker.waitUntilReady();
    })();
    return this.starting;
  }

  /** The events of one order received so far, in arrival order. */
  eventsOf(orderId: string): readonly StatusEvent[] {
    return this.history.get(orderId) ?? [];
  }

  /**
   * Calls `listener` with each new event of `orderId` (every order's when `orderId` is undefined),
   * and with `undefined` when the stream closes. Returns the function that stops it.
   */
  subscribe(orderId: string | undefined, listener: StatusListener): () => void {
    if (this.closing) {
      listener(undefined);
      return () => undefined;
    }
    if (orderId === undefined) {
      this.everyOrder.add(listener);
      return () => void this.everyOrder.delete(listener);
    }
    let set = this.byOrder.get(orderId);
    if (!set) this.byOrder.set(orderId, (set = new Set()));
    const listeners = set;
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.byOrder.get(orderId) === listeners) this.byOrder.delete(orderId);
    };
  }

  isClosed(): boolean {
    return this.closing !== undefined;
  }

  /**
   * Stops consuming (an event being handled is finished first) and ends every subscription. With
   * Redis out of reach, the worker's clean close would wait for it forever (its blocking connection
   * sends QUIT): the worker's connections are then dropped instead.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.starting?.catch(() => undefined);
      await this.worker?.close(this.options.connection.status !== 'ready');
      this.endSubscriptions();
    })();
    return this.closing;
  }

  /**
   * Gives up on a close that is out of time (Redis gone during it, so the worker's blocking
   * connection waits for an answer to QUIT that never comes, and reconnects meanwhile): ends every
   * subscription now, so open `statuses` loops end, and drops that connection. Idempotent.
   */
  abandon(): void {
    this.endSubscriptions();
    // BullMQ keeps the worker's own blocking connection (a duplicate of ours) to itself; dropping it
    // is the only way to stop it reconnecting for ever, which would also keep the process alive.
    const blocking = (this.worker as unknown as { blockingConnection?: { disconnect(wait: boolean): Promise<void> } } | undefined)?.blockingConnection;
    blocking?.disconnect(false).catch(() => undefined);
  }

  private endSubscriptions(): void {
    for (const listener of this.allListeners()) listener(undefined);
    this.byOrder.clear();
    this.everyOrder.clear();
  }

  private async receive(job: Job): Promise<void> {
    const parsed = StatusEvent.safeParse(job.data);
    if (!parsed.success) {
      this.options.onInvalidStatus(job.data, describeIssues(parsed.error));
      return;
    }
    const event = parsed.data;
    const id = event.eventId ?? `job:${job.id ?? ''}`;
    if (this.seen.has(id)) return;
    this.remember(id);
    const forOrder = event.orderId === undefined ? [] : [...(this.byOrder.get(event.orderId) ?? [])];
    if (event.orderId !== undefined) this.record(event.orderId, event);
    for (const listener of [...forOrder, ...this.everyOrder]) listener(event);
  }

  private allListeners(): StatusListener[] {
    return [...[...this.byOrder.values()].flatMap((set) => [...set]), ...this.everyOrder];
  }

  private remember(id: string): void {
    this.seen.add(id);
    // A Set iterates in insertion order: the first value is the oldest.
    if (this.seen.size > this.options.dedupWindow) this.seen.delete(this.seen.values().next().value as string);
  }

  private record(orderId: string, event: StatusEvent): void {
    const events = this.history.get(orderId);
    if (events) {
      events.push(event);
      return;
    }
    this.history.set(orderId, [event]);
    if (this.history.size > this.options.historyLimit) this.history.delete(this.history.keys().next().value as string);
  }
}
