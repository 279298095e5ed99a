/** One look at a consumer: the work waiting for it and what it did with it. */
export interface ConsumerSample {
  /** When the look was taken (ms, from the watch's clock). */
  at: number;
  /** Jobs in the queue's wait list: ready now, for any consumer of the queue. */
  waiting: number;
  /** Jobs this consumer has taken since it started: a counter that only grows. */
  taken: number;
  /** Jobs this consumer is handling now. */
  active: number;
  /** How many it handles at once. */
  concurrency: number;
}

/**
 * What a look found: `fine` (it took a job since the last look, its queue is empty, or every slot is
 * busy), `idle` (work waits, it has room and took none, for less than the bound so far) or `stuck`
 * (the same, past the bound).
 */
export type ConsumerState = { state: 'fine' } | { state: 'idle'; forMs: number } | { state: 'stuck'; forMs: number };

/**
 * Whether a consumer has stopped taking work: jobs have been waiting in its queue, it had room for
 * them, and it took none, for longer than `boundMs`. That is what a consumer whose loop hangs looks
 * like from outside, whatever hangs inside it (after a Redis Cluster failover, BullMQ's wait for
 * jobs was seen to never return while every connection answered its PINGs).
 *
 * Pure: the caller takes the samples (see `ConsumerWatch`).
 */
export class ConsumerProgress {
  private lastTaken: number | undefined;
  private idleSince: number | undefined;

  constructor(private readonly boundMs: number) {
    if (!(boundMs > 0)) throw new Error(`ConsumerProgress: boundMs must be a positive number of milliseconds (got ${boundMs})`);
  }

  observe(sample: ConsumerSample): ConsumerState {
    const tookSome = this.lastTaken !== undefined && sample.taken !== this.lastTaken;
    this.lastTaken = sample.taken;
    if (sample.waiting === 0 || sample.active >= sample.concurrency || tookSome) {
      this.idleSince = undefined;
      return { state: 'fine' };
    }
    this.idleSince ??= sample.at;
    const forMs = sample.at - this.idleSince;
    return forMs > this.boundMs ? { state: 'stuck', forMs } : { state: 'idle', forMs };
  }

  /**
   * A look that could not count the waiting work (Redis did not answer in time): the wait starts over
   * at the next look, so the time Redis itself was away is never counted against the consumer.
   */
  unknown(): void {
    this.idleSince = undefined;
  }

  /** The consumer was restarted: it gets the whole bound again to take the waiting work. */
  restarted(at: number): void {
    this.idleSince = at;
  }
}
