import type { Clock } from '@sas/runtime';
import type { Sleep } from '../sleep';

interface Timer {
  at: number;
  seq: number;
  wake: () => void;
}

/**
 * A clock and a {@link Sleep} on virtual time, for tests (and the shape the simulation will use):
 * nothing waits for real. `run(promise)` lets pending work settle, then jumps the clock to the
 * next due sleeper and wakes it, until the promise settles.
 */
export class VirtualTime implements Clock {
  private current: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  readonly sleep: Sleep = (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const timer: Timer = {
        at: this.current + Math.max(0, ms),
        seq: this.seq++,
        wake: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.timers = this.timers.filter((t) => t !== timer);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.timers.push(timer);
    });

  /** Sleepers not yet woken. */
  pending(): number {
    return this.timers.length;
  }

  /** Moves the clock forward by `ms`, waking every sleeper due on the way, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      await settle();
      const next = this.earliest();
      if (!next || next.at > target) break;
      this.fire(next);
    }
    this.current = target;
    await settle();
  }

  /** Drives virtual time until `promise` settles; fails when it waits on nothing this clock controls. */
  async run<T>(promise: Promise<T>, maxWakeups = 10_000): Promise<T> {
    let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
    promise.then(
      (value) => (outcome = { ok: true, value }),
      (error: unknown) => (outcome = { ok: false, error }),
    );
    for (let i = 0; i < maxWakeups; i += 1) {
      await settle();
      if (outcome?.ok) return outcome.value;
      if (outcome) throw outcome.error;
      const next = this.earliest();
      if (!next) {
        throw new Error(
          'The promise is still pending and no virtual sleeper is due: it waits on something else',
        );
      }
      this.fire(next);
    }
    throw new Error(`The promise did not settle within ${maxWakeups} virtual wake-ups`);
  }

  private earliest(): Timer | undefined {
    return [...this.timers].sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
  }

  private fire(timer: Timer): void {
    this.timers = this.timers.filter((t) => t !== timer);
    this.current = Math.max(this.current, timer.at);
    timer.wake();
  }
}

/** Lets every promise continuation that is ready run (a macrotask turn drains all microtasks). */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i += 1) await new Promise<void>((r) => setImmediate(r));
}
