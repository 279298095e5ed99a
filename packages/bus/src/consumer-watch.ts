import type { Queue, Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { RedisConnection } from '@sas/client';
import { ensureError, type Clock, type StallBoard } from '@sas/runtime';
import { ConsumerProgress } from './consumer-progress';

/** The stall keys of consumers ({@link watchConsumer}): `consumer:<queue>`. */
export const CONSUMER_STALL_PREFIX = 'consumer:';

/** Options of {@link ConsumerWatch}. */
export interface ConsumerWatchOptions {
  worker: Worker;
  /** A handle on the same queue over another connection (the bus's sender), to count what waits. */
  queue: Queue;
  /** Stall key on the board, e.g. `consumer:agent.payment.requests`. */
  key: string;
  /** Logged with the stall and the restarts (the queue's name, at least). */
  fields: Record<string, unknown>;
  board: StallBoard;
  clock: Clock;
  logger: Logger;
  /** Work waiting this long, with room and nothing taken, is a stuck consumer. */
  boundMs: number;
  /** How often to look. @default min(1000, boundMs / 4) */
  intervalMs?: number;
  /** Gets a stuck consumer going again; called once per bound while it stays stuck. */
  restart: () => Promise<void>;
}

/**
 * Watches a consumer from outside its loop (see {@link ConsumerProgress}): every interval it counts
 * the jobs waiting in its queue, through the sender's connection, and compares with the jobs the
 * worker took. A consumer stuck past its bound is reported on the {@link StallBoard} (a warning,
 * and `/readyz` unready while it lasts) and restarted, with an error line each time; the stall ends
 * once it takes a job again. A look that Redis does not answer within the interval decides nothing
 * (the heartbeats report a silent Redis); one look is in flight at a time.
 */
export class ConsumerWatch {
  private readonly progress: ConsumerProgress;
  private readonly timer: NodeJS.Timeout;
  private taken = 0;
  private looking = false;
  private restarting = false;
  private restarts = 0;
  private stopped = false;

  constructor(private readonly options: ConsumerWatchOptions) {
    this.progress = new ConsumerProgress(options.boundMs);
    options.worker.on('active', () => {
      this.taken += 1;
    });
    const intervalMs = options.intervalMs ?? Math.min(1_000, Math.max(50, Math.floor(options.boundMs / 4)));
    this.timer = setInterval(() => void this.look(intervalMs), intervalMs);
    this.timer.unref();
  }

  /** True while the consumer is stuck past its bound. */
  isStuck(): boolean {
    return this.options.board.has(this.options.key);
  }

  /** How many times the consumer was restarted. */
  restartCount(): number {
    return this.restarts;
  }

  private async look(intervalMs: number): Promise<void> {
    if (this.looking || this.stopped) return;
    this.looking = true;
    try {
      const { worker, queue, clock, board, key, fields, boundMs, logger } = this.options;
      if (!worker.isRunning()) return;
      const waiting = await withinMs(queue.getWaitingCount(), intervalMs);
      if (waiting === undefined) {
        this.progress.unknown();
        return;
      }
      if (this.stopped) return;
      const stuckMs = this.progress.observe({ at: clock.now(), waiting, taken: this.taken, active: activeJobs(worker), concurrency: worker.concurrency });
      if (stuckMs === undefined) {
        board.end(key, fields);
        return;
      }
      board.begin(key, `consumer of queue '${String(fields['queue'] ?? key)}' has taken no job for ${stuckMs} ms while ${waiting} waited and it had room (bound ${boundMs} ms); restarting its wait for jobs`, {
        ...fields,
        stuckMs,
        waiting,
        boundMs,
      });
      if (this.restarting) return;
      this.restarting = true;
      this.restarts += 1;
      logger.error({ ...fields, stuckMs, waiting, restarts: this.restarts }, 'consumer stuck: restarting its wait for jobs');
      this.progress.restarted(clock.now());
      await this.options.restart().catch((e: unknown) => logger.error({ ...fields, err: ensureError(e) }, 'consumer restart failed; trying again after another bound'));
      this.restarting = false;
    } finally {
      this.looking = false;
    }
  }

  /** Stops looking; a stall, if any, is cleared (the consumer is being closed on purpose). */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.options.board.end(this.options.key, this.options.fields);
  }
}

/** What {@link watchConsumer} needs besides the worker. */
export interface WatchConsumerOptions {
  queueName: string;
  queue: Queue;
  board: StallBoard;
  clock: Clock;
  logger: Logger;
  boundMs: number;
  /** The worker's blocking connections (BullMQ's duplicates of the consumer's connection). */
  blocking: () => readonly RedisConnection[];
}

/**
 * Watches a bus consumer until its worker closes. The restart drops the worker's blocking
 * connection: whatever BullMQ's wait for jobs was stuck on (a reply that never came, a reconnect
 * that never settled) then fails, and BullMQ opens the connection again and waits anew, as it does
 * after any lost connection. Jobs being handled are not touched: their locks and completions go
 * over the worker's other connection.
 */
export function watchConsumer(worker: Worker, options: WatchConsumerOptions): ConsumerWatch {
  const fields = { queue: options.queueName };
  const watch = new ConsumerWatch({
    worker,
    queue: options.queue,
    key: `${CONSUMER_STALL_PREFIX}${options.queueName}`,
    fields,
    board: options.board,
    clock: options.clock,
    logger: options.logger,
    boundMs: options.boundMs,
    restart: async () => {
      for (const connection of options.blocking()) connection.disconnect();
    },
  });
  worker.once('closing', () => watch.stop());
  return watch;
}

/**
 * Jobs the worker handles now. BullMQ tracks them for their locks; a worker without that record
 * counts as having room, so a stuck consumer is never missed (a restart leaves handlers running).
 */
function activeJobs(worker: Worker): number {
  const locks = (worker as unknown as { lockManager?: { getActiveJobCount?: () => number } }).lockManager;
  return typeof locks?.getActiveJobCount === 'function' ? locks.getActiveJobCount() : 0;
}

/** `promise`'s value, or undefined if it failed or took longer than `ms`. */
async function withinMs<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}
