import type { Clock } from '@sas/runtime';
import type { SimActor } from './sim-actor';

/** A timer on virtual time; owned by an actor, it dies with it. */
export interface SimTimer {
  readonly at: number;
  readonly seq: number;
  readonly owner: SimActor | null;
  readonly fire: () => void;
  cancelled: boolean;
}

/**
 * Virtual time: a clock that only moves when the simulation jumps it to the next due timer, and a
 * min-heap of timers ordered by (due time, creation order), so equal due times fire in a fixed order.
 */
export class SimClock implements Clock {
  private current: number;
  private seq = 0;
  private readonly heap: SimTimer[] = [];

  constructor(start: number) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  /** Runs `fire` after `delayMs` of virtual time, unless cancelled or its owner died first. */
  schedule(delayMs: number, owner: SimActor | null, fire: () => void): SimTimer {
    const timer: SimTimer = { at: this.current + Math.max(0, delayMs), seq: this.seq++, owner, fire, cancelled: false };
    this.push(timer);
    return timer;
  }

  /** The next live timer, removed from the heap, with the clock moved to its due time; undefined when none is left. */
  takeNext(): SimTimer | undefined {
    for (;;) {
      const top = this.pop();
      if (!top) return undefined;
      if (top.cancelled || (top.owner && !top.owner.alive)) continue;
      this.current = Math.max(this.current, top.at);
      return top;
    }
  }

  /** Due time of the next timer (dead ones included; cheap), or undefined. */
  peekAt(): number | undefined {
    return this.heap[0]?.at;
  }

  private less(a: SimTimer, b: SimTimer): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private push(timer: SimTimer): void {
    const h = this.heap;
    h.push(timer);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(h[i] as SimTimer, h[parent] as SimTimer)) break;
      [h[i], h[parent]] = [h[parent] as SimTimer, h[i] as SimTimer];
      i = parent;
    }
  }

  private pop(): SimTimer | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.less(h[l] as SimTimer, h[m] as SimTimer)) m = l;
        if (r < h.length && this.less(h[r] as SimTimer, h[m] as SimTimer)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m] as SimTimer, h[i] as SimTimer];
        i = m;
      }
    }
    return top;
  }
}
