import type { AgentReply, ProcessDocument, SchedulerWakeup } from '@sas/contracts';
import type { ApplyOutcome, ProcessEngine } from '@sas/engine';
import { ensureError, type Clock } from '@sas/runtime';
import type { ProcessStore } from '@sas/store';
import type { Logger } from 'pino';
import type { SchedulerMetrics } from './scheduler-metrics';
import { stepObservation } from './step-observation';

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
  /**
   * Whether a dispatch can be sent now (the bus is connected). While it says no, claim rounds are
   * skipped: claiming would only hold processes whose dispatch cannot leave. @default always
   */
  canDispatch?: () => boolean;
  /** Where applied replies are reported for the step duration histogram. @default none */
  metrics?: SchedulerMetrics;
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
  private readonly counters = { claimed: 0, handedOver: 0, claimErrors: 0, replies: 0, staleReplies: 0, quarantined: 0, skippedRounds: 0 };

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
    if (this.deps.canDispatch && !this.deps.canDispatch()) {
      this.counters.skippedRounds += 1;
      this.deps.logger.debug('bus not connected; claim round skipped until it is');
      return;
    }
    const batch = this.deps.claimBatch ?? 20;
    // Processes that could not be claimed in this round (a transient error, or a workflow version
    // that may still be deployed) are skipped for the rest of it, so they never block the ones
    // behind them; the next round tries them again. Nothing is skipped for longer than a round.
    const skipped = new Set<string>();
    for (;;) {
      if (this.closed) return;
      const limit = batch + skipped.size;
      const found = await this.deps.store.findClaimable(new Date(this.deps.clock.now()), limit);
      const candidates = found.filter((d) => !skipped.has(d._id));
      let claimed = 0;
      for (const summary of candidates) {
        try {
          const outcome = await this.deps.engine.apply(summary._id, { type: 'claim' });
          if (outcome.kind === 'applied') claimed += 1;
          if (outcome.kind === 'unhandleable') {
            const given = await this.deps.engine.giveUp(summary, outcome);
            if (given === 'quarantined') this.counters.quarantined += 1;
            else skipped.add(summary._id);
          }
        } catch (e) {
          skipped.add(summary._id);
          this.counters.claimErrors += 1;
          this.deps.logger.warn({ err: ensureError(e), processId: summary._id, orderId: summary.orderId }, 'could not claim process; the next round retries it');
        }
      }
      this.counters.claimed += claimed;
      // A full batch may mean more are waiting; a batch lost entirely to other schedulers is re-read too.
      if (found.length < limit || candidates.length === 0) return;
    }
  }

  /**
   * A wake-up that names its process claims that process at once: one read and one conditional
   * write, where a claim round would first query for every claimable process. Anything the direct
   * claim cannot settle (an unnamed wake-up, a store error, a process this build cannot handle)
   * falls back to a claim round, and the poll still catches a lost wake-up.
   */
  async onWakeup(wakeup: SchedulerWakeup): Promise<void> {
    if (!wakeup.processId || (this.deps.canDispatch && !this.deps.canDispatch())) return this.claimAvailable();
    try {
      const outcome = await this.deps.engine.apply(wakeup.processId, { type: 'claim' });
      if (outcome.kind === 'applied') this.counters.claimed += 1;
      // Ignored: not claimable (yet), or another scheduler has it; either way nothing is owed here.
      if (outcome.kind !== 'unhandleable' && outcome.kind !== 'contended') return;
    } catch (e) {
      this.counters.claimErrors += 1;
      this.deps.logger.warn({ err: ensureError(e), processId: wakeup.processId }, 'could not claim the woken process; a claim round retries it');
    }
    return this.claimAvailable();
  }

  /**
   * Claims a process that the submission role of this same Node process has just inserted, from the
   * copy it hands over (`sas up`'s shared core): no wake-up job and no read. True only when this
   * claim was committed; on any other answer the submission falls back to the wake-up job, exactly
   * as without a scheduler beside it, so nothing this method declines is left unclaimed.
   */
  async claimHandedOver(doc: ProcessDocument): Promise<boolean> {
    if (this.closed || (this.deps.canDispatch && !this.deps.canDispatch())) return false;
    try {
      const outcome = await this.deps.engine.applyFromCopy(doc, { type: 'claim' });
      if (outcome.kind !== 'applied') return false;
      this.counters.claimed += 1;
      this.counters.handedOver += 1;
      return true;
    } catch (e) {
      this.counters.claimErrors += 1;
      this.deps.logger.warn({ err: ensureError(e), processId: doc._id }, 'could not claim the process handed over; its wake-up job is sent instead');
      return false;
    }
  }

  /** Applies an agent's reply; a stale one is logged and changes nothing. */
  async onReply(reply: AgentReply): Promise<ApplyOutcome> {
    this.counters.replies += 1;
    const outcome = await this.deps.engine.apply(reply.processId, { type: 'reply', reply });
    const log = this.deps.logger.child({ processId: reply.processId, step: reply.step, attempt: reply.attempt });
    if (outcome.kind === 'applied' && this.deps.metrics) {
      const observation = stepObservation(reply, outcome.process, this.deps.clock.now());
      if (observation) this.deps.metrics.stepReplied(observation);
    }
    if (outcome.kind === 'ignored') {
      this.counters.staleReplies += 1;
      log.info({ outcome: reply.outcome, reason: outcome.reason }, 'reply ignored');
    } else if (outcome.kind === 'unhandleable') {
      // The claim round or the sweep gives such a process up to an operator; the reply is moot.
      log.error({ reason: outcome.reason }, 'reply for a process this build cannot handle ignored');
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
