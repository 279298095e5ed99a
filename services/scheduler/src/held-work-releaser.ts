import type { PausedAgentsCache, ProcessEngine } from '@sas/engine';
import { ensureError, type Clock } from '@sas/runtime';
import type { ProcessStore } from '@sas/store';
import type { Logger } from 'pino';
import { HeldWorkCadence, type HeldWorkCadenceOptions } from './held-work-cadence';
import { ReleaseBudget } from './release-budget';

/** Dependencies of {@link HeldWorkReleaser}. */
export interface HeldWorkReleaserDeps {
  engine: ProcessEngine;
  store: Pick<ProcessStore, 'findHeld'>;
  /** The pauses as this scheduler's engine sees them (the same cache). */
  pauses: Pick<PausedAgentsCache, 'resumed'>;
  clock: Clock;
  logger: Logger;
  /** Held processes this scheduler claims per second at most, all agents together. @default 20 */
  ratePerSecond?: number;
  /** Time between release rounds; 0 disables the timer (a test calls `releaseRound`). @default 500 */
  intervalMs?: number;
  /** How often a round queries an agent's held work once it found none (see {@link HeldWorkCadence}). */
  cadence?: HeldWorkCadenceOptions;
}

/**
 * Releases work held for paused agents once they are resumed, at a bounded rate, so a backlog does
 * not stampede the remote that just came back. Each release is an ordinary claim through the
 * engine (conditional on the revision), so two schedulers releasing the same process never both
 * dispatch it, and a process an operator canceled meanwhile is simply claimed for its undo.
 * Each scheduler has its own budget: the whole system releases at most N × `ratePerSecond`.
 */
export class HeldWorkReleaser {
  private readonly budget: ReleaseBudget;
  private readonly cadence: HeldWorkCadence;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  private readonly counters = { released: 0, releaseErrors: 0 };

  constructor(private readonly deps: HeldWorkReleaserDeps) {
    const rate = deps.ratePerSecond ?? 20;
    // At most one round's worth at once: a long-resumed agent does not get a burst banked for it.
    this.budget = new ReleaseBudget(rate, Math.max(1, Math.ceil((rate * this.interval) / 1000)));
    this.cadence = new HeldWorkCadence(deps.cadence);
  }

  private get interval(): number {
    return this.deps.intervalMs ?? 500;
  }

  start(): void {
    if (this.interval > 0) {
      this.timer = setInterval(() => void this.releaseRound(), this.interval);
      this.timer.unref();
    }
  }

  /** Counters for `/metrics`. */
  metrics(): Record<string, number> {
    return { ...this.counters };
  }

  /** One round: claims as many held processes of resumed agents as the budget allows. Never overlaps itself. */
  releaseRound(): Promise<void> {
    this.running ??= this.releaseOnce()
      .catch((e: unknown) => this.deps.logger.warn({ err: ensureError(e) }, 'release of held work failed; the next round retries'))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private async releaseOnce(): Promise<void> {
    if (this.closed) return;
    const resumed = await this.deps.pauses.resumed();
    this.cadence.keepOnly(resumed);
    if (resumed.size === 0) return;
    const now = this.deps.clock.now();
    let left = this.budget.available(now);
    for (const agent of [...resumed.keys()].sort()) {
      if (left <= 0 || this.closed) return;
      const since = resumed.get(agent) as Date;
      if (!this.cadence.shouldLook(agent, since.getTime(), now)) continue;
      const held = await this.deps.store.findHeld(agent, left);
      this.cadence.looked(agent, now, held.length === 0);
      for (const summary of held) {
        if (this.closed) return;
        left -= 1;
        this.budget.spend(1);
        try {
          const outcome = await this.deps.engine.apply(summary._id, { type: 'claim' });
          if (outcome.kind === 'applied') this.counters.released += 1;
          else if (outcome.kind === 'unhandleable') await this.deps.engine.giveUp(summary, outcome);
        } catch (e) {
          this.counters.releaseErrors += 1;
          this.deps.logger.warn({ err: ensureError(e), processId: summary._id, agent }, 'could not release held process; a later round retries it');
        }
      }
      if (held.length > 0) this.deps.logger.info({ agent, released: held.length }, 'released work held while the agent was paused');
    }
  }

  /** Stops releasing and waits for the round in flight. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
