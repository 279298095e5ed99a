import type { OutputLine } from './output-line';

interface LineWaiter {
  readonly run: number;
  readonly predicate: (line: OutputLine) => boolean;
  readonly description: string;
  readonly resolve: (line: OutputLine) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * Pending `waitForLine` calls of one process. Kept apart from the process bookkeeping so each
 * waiter is settled exactly once: by a matching line, by its deadline, or by the end of its run.
 */
export class LineWaiters {
  private readonly waiters = new Set<LineWaiter>();

  /** @param makeError builds the rejection, so it can carry the process's last lines. */
  constructor(private readonly makeError: (description: string, reason: string) => Error) {}

  /** Waits for a line of `run` matching `predicate`; rejects after `timeoutMs`. */
  wait(
    run: number,
    predicate: (line: OutputLine) => boolean,
    timeoutMs: number,
    description: string,
  ): Promise<OutputLine> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(this.makeError(description, `timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter: LineWaiter = { run, predicate, description, resolve, reject, timer };
      this.waiters.add(waiter);
    });
  }

  /** Hands a new line to every waiter of its run; a predicate that throws rejects its waiter. */
  offer(line: OutputLine): void {
    for (const waiter of this.waiters) {
      if (waiter.run !== line.run) continue;
      let matched: boolean;
      try {
        matched = waiter.predicate(line);
      } catch (error) {
        this.settle(waiter);
        waiter.reject(
          new Error(`The predicate for ${waiter.description} threw on line: ${line.text}`, { cause: error }),
        );
        continue;
      }
      if (matched) {
        this.settle(waiter);
        waiter.resolve(line);
      }
    }
  }

  /** Rejects every waiter of `run` (the run ended, so no matching line can come any more). */
  failRun(run: number, reason: string): void {
    for (const waiter of this.waiters) {
      if (waiter.run !== run) continue;
      this.settle(waiter);
      waiter.reject(this.makeError(waiter.description, reason));
    }
  }

  private settle(waiter: LineWaiter): void {
    clearTimeout(waiter.timer);
    this.waiters.delete(waiter);
  }
}
