import type { AgentReply } from '@sas/contracts';
import type { ApplyOutcome, ProcessEngine } from '@sas/engine';
import { ensureError, type Clock } from '@sas/runtime';
import type { ProcessStore } from '@sas/store';
import type { Logger } from 'pino';

/** Dependencies of {@link Scheduler}. */
export interface SchedulerDeps {
  engine: ProcessEngine;
  store: ProcessStore;
  clock: Clock;
  logger: Logger;
  /** @default 20 */
  claimBatch?: number;
  /** 0 disables the poll (a simulation drives `claimAvailable` itself). @default 1000 */
  pollIntervalMs?: number;
}

/**
 * Claims Pending processes and applies agent replies. Holds nothing only in memory: everything it
 * knows is in the store, so any instance (or a restarted one) continues any process.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private readonly counters = { claimed: 0, claimErrors: 0, replies: 0, staleReplies: 0 };

  constructor(private readonly deps: SchedulerDeps) {}

  start(): void {
    const interval = this.deps.pollIntervalMs ?? 1000;
    if (interval > 0) {
      this.timer = setInterval(() => void this.claimAvailable(), interval);
      this.timer.unref();
    }
    void this.claimAvailable();
  }

  /** Counters for `/metrics`. */
  metrics(): Record<string, number> {
    return { ...this.counters };
  }

  /**
   * Claims every claimable process. Single-flight: a call while a round runs asks for one more
   * round, so a burst of wake-ups costs one query loop, not one each.
   */
  claimAvailable(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.claimRound();
        } while (this.again && !this.closed);
      } catch (e) {
        this.deps.logger.warn({ err: ensureError(e) }, 'claim round failed; the next poll retries');
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private async claimRound(): Promise<void> {
    const batch = this.deps.claimBatch ?? 20;
    // Processes that cannot be handled here (e.g. their workflow version is not deployed) are
    // skipped for the rest of the round, so they never block the ones behind them.
    const poisoned = new Set<string>();
    for (;;) {
      if (this.closed) return;
      const limit = batch + poisoned.size;
      const found = await this.deps.store.findClaimable(new Date(this.deps.clock.now()), limit);
      const candidates = found.filter((d) => !poisoned.has(d._id));
      let claimed = 0;
      for (const doc of candidates) {
        try {
          const outcome = await this.deps.engine.applyTo(doc, { type: 'claim' });
          if (outcome.kind === 'applied') claimed += 1;
        } catch (e) {
          poisoned.add(doc._id);
          this.counters.claimErrors += 1;
          this.deps.logger.error({ err: ensureError(e), processId: doc._id, orderId: doc.orderId }, 'cannot claim process; skipping it');
        }
      }
      this.counters.claimed += claimed;
      // A full batch may mean more are waiting; a batch lost entirely to other schedulers is re-read too.
      if (found.length < limit || candidates.length === 0) return;
    }
  }

  /** Applies an agent's reply; a stale one is logged and changes nothing. */
  async onReply(reply: AgentReply): Promise<ApplyOutcome> {
    this.counters.replies += 1;
    const outcome = await this.deps.engine.apply(reply.processId, { type: 'reply', reply });
    const log = this.deps.logger.child({ processId: reply.processId, step: reply.step, attempt: reply.attempt });
    if (outcome.kind === 'ignored') {
      this.counters.staleReplies += 1;
      log.info({ outcome: reply.outcome, reason: outcome.reason }, 'reply ignored');
    } else if (outcome.kind === 'not-found') {
      log.warn('reply for an unknown process ignored (removed by TTL?)');
    } else if (outcome.kind === 'contended') {
      // Throwing makes BullMQ redeliver the reply later, when the contention has passed.
      throw new Error(`process ${reply.processId} kept changing while applying a reply; will retry`);
    }
    return outcome;
  }

  /** Stops polling and waits for the round in flight. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
