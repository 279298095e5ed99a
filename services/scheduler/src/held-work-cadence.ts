/** When the release of held work looks for an agent's held processes (see {@link HeldWorkCadence}). */
export interface HeldWorkCadenceOptions {
  /** After a resume, look every round for this long. @default 10000 */
  fastWindowMs?: number;
  /** Past that window, once a look found nothing held, look this often. @default 30000 */
  slowIntervalMs?: number;
}

interface Look {
  at: number;
  foundNothing: boolean;
}

/**
 * Decides, per resumed agent, whether a release round queries the store for its held work. A
 * resumed agent keeps its pause document for ever, so looking every round would cost every
 * scheduler a query per agent ever paused, twice a second, for good. Right after a resume held
 * work is still being written (another scheduler's pause reading is up to its cache's age stale,
 * and a transition that read it may commit later still), so every round looks during the fast
 * window; after it, an agent whose last look found nothing is looked at once per slow interval.
 * It never stops looking: a hold committed arbitrarily late is released at most one slow interval later.
 * A new resume starts the fast window again, since the window is counted from the current resume's
 * `since`. Pure: the caller owns the clock.
 */
export class HeldWorkCadence {
  private readonly looks = new Map<string, Look>();
  private readonly fastWindowMs: number;
  private readonly slowIntervalMs: number;

  constructor(options: HeldWorkCadenceOptions = {}) {
    this.fastWindowMs = options.fastWindowMs ?? 10_000;
    this.slowIntervalMs = options.slowIntervalMs ?? 30_000;
  }

  /** Whether to query `agent`'s held work now; `since` is when its current resume began. */
  shouldLook(agent: string, since: number, now: number): boolean {
    const last = this.looks.get(agent);
    if (!last || !last.foundNothing) return true;
    if (now - since < this.fastWindowMs) return true;
    return now - last.at >= this.slowIntervalMs;
  }

  /** Records a look: `foundNothing` when it found no held process of `agent` at all. */
  looked(agent: string, now: number, foundNothing: boolean): void {
    this.looks.set(agent, { at: now, foundNothing });
  }

  /** Forgets agents that are no longer resumed (paused again, or their document removed). */
  keepOnly(resumed: ReadonlyMap<string, unknown>): void {
    for (const agent of this.looks.keys()) if (!resumed.has(agent)) this.looks.delete(agent);
  }
}
