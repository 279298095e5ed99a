import type { Queue, Worker } from 'bullmq';
import type { Logger } from 'pino';
import { type Clock, type StallBoard } from '@sas/runtime';
import { ConsumerProgress } from './consumer-progress';

/** The stall keys of consumers ({@link watchConsumer}): `consumer:<queue>`. */
export const CONSUMER_STALL_PREFIX = 'consumer:';

/** What the watch needs of a consumer: its worker now, and a way to replace it (`Consumer`). */
export interface RestartableConsumer {
  readonly bullWorker: Worker;
  restartWorker(): Worker;
}

/** Options of {@link watchConsumer}. */
export interface WatchConsumerOptions {
  queueName: string;
  /** A handle on the same queue over another connection (the bus's sender), to count what waits. */
  queue: Queue;
  board: StallBoard;
  clock: Clock;
  logger: Logger;
  /** Work waiting this long, with room and nothing taken, is a stuck consumer. */
  boundMs: number;
  /** How often to look. @default min(1000, boundMs / 4) */
  intervalMs?: number;
}

/**
 * Watches a consumer from outside its loop (see {@link ConsumerProgress}) until it closes: every
 * interval it counts the jobs waiting in its queue, through the sender's connection, and compares
 * with the jobs the worker took. A consumer stuck past its bound is reported on the
 * {@link StallBoard} (a warning, and `/readyz` unready while it lasts) and restarted: its BullMQ
 * worker is replaced by a new one, with an error line each time, once per bound while it stays
 * stuck. A worker that still holds jobs is not replaced (their locks would lapse and the jobs be
 * delivered again while their handlers run); the stall says so, and the restart waits for them. The
 * stall ends once the consumer takes a job again (or its queue empties). A look that Redis does not
 * answer within the interval decides nothing and restarts the count (the heartbeats report a silent
 * Redis); one look is in flight at a time.
 */
export function watchConsumer(consumer: RestartableConsumer, options: WatchConsumerOptions): void {
  const { queueName, queue, board, clock, logger, boundMs } = options;
  const key = `${CONSUMER_STALL_PREFIX}${queueName}`;
  const fields = { queue: queueName };
  const progress = new ConsumerProgress(boundMs);
  const intervalMs = options.intervalMs ?? Math.min(1_000, Math.max(50, Math.floor(boundMs / 4)));
  let taken = 0;
  let restarts = 0;
  let looking = false;
  let stopped = false;
  let worker: Worker;

  const onActive = (): void => {
    taken += 1;
  };
  const stop = (): void => {
    stopped = true;
    clearInterval(timer);
    board.end(key, fields);
  };
  const follow = (next: Worker): void => {
    worker = next;
    worker.on('active', onActive);
    worker.once('closing', stop);
  };
  const restart = (stuckMs: number, waiting: number): void => {
    worker.off('active', onActive);
    worker.off('closing', stop);
    restarts += 1;
    logger.error({ ...fields, stuckMs, waiting, restarts }, 'consumer stuck: replacing its worker');
    follow(consumer.restartWorker());
    progress.restarted(clock.now());
  };

  const look = async (): Promise<void> => {
    if (looking || stopped) return;
    looking = true;
    try {
      if (!worker.isRunning()) return;
      const waiting = await withinMs(queue.getWaitingCount(), intervalMs);
      if (stopped) return;
      if (waiting === undefined) {
        progress.unknown();
        return;
      }
      const active = activeJobs(worker);
      const seen = progress.observe({ at: clock.now(), waiting, taken, active: active ?? 0, concurrency: worker.concurrency });
      if (seen.state === 'fine') board.end(key, fields);
      if (seen.state !== 'stuck') return;
      const holding =
        active === undefined
          ? '; its jobs in hand cannot be counted, so it is not replaced'
          : active > 0
            ? `; it still holds ${active} job(s), so it is replaced once they finish`
            : '; replacing its worker';
      board.begin(key, `consumer of queue '${queueName}' has taken no job for ${seen.forMs} ms while ${waiting} waited and it had room (bound ${boundMs} ms)${holding}`, {
        ...fields,
        stuckMs: seen.forMs,
        waiting,
        active: active ?? null,
        boundMs,
      });
      if (active === 0) restart(seen.forMs, waiting);
    } finally {
      looking = false;
    }
  };

  follow(consumer.bullWorker);
  const timer = setInterval(() => void look(), intervalMs);
  timer.unref();
}

/**
 * Jobs the worker handles now, as BullMQ tracks them for their locks; undefined if this BullMQ has
 * no such record, and then the worker is never replaced (only reported).
 */
function activeJobs(worker: Worker): number | undefined {
  const locks = (worker as unknown as { lockManager?: { getActiveJobCount?: () => number } }).lockManager;
  return typeof locks?.getActiveJobCount === 'function' ? locks.getActiveJobCount() : undefined;
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
