import type { ProcessEngine } from '@sas/engine';
import { ensureError, type Clock } from '@sas/runtime';
import type { ProcessStore } from '@sas/store';
import type { LiveAgents } from '@sas/workflow';
import type { Logger } from 'pino';
import { recoveryAction } from './recovery-action';
import type { SupervisorMetrics } from './supervisor-metrics';
import type { SweepLease } from './sweep-lease';

/** Dependencies of {@link Supervisor}. */
export interface SupervisorDeps {
  engine: ProcessEngine;
  store: ProcessStore;
  lease: SweepLease;
  clock: Clock;
  instanceId: string;
  logger: Logger;
  /** 0 disables the timer (a simulation calls `sweep` itself). @default 1000 */
  sweepIntervalMs?: number;
  /** @default 100 */
  batch?: number;
  /** @default 3 × sweepIntervalMs */
  leaseTtlMs?: number;
  /** How long an outbox may stay undelivered before the sweep delivers it. @default 5000 */
  outboxGraceMs?: number;
  /** Where recoveries are reported by workflow and action. @default none */
  metrics?: SupervisorMetrics;
  /**
   * The operations live agents serve, read once per sweep that recovers something, so a recovered
   * step whose agent is not running says so in its reason. @default none: the reason says only that complete-by passed
   */
  liveAgents?: (now: Date) => Promise<LiveAgents>;
}

/** What one sweep did. */
export interface SweepReport {
  leader: boolean;
  recovered: number;
  skipped: number;
  /** Processes whose owed outbox (left by a crash after a commit) this sweep delivered. */
  delivered: number;
}

const LEASE = 'supervisor-sweep';
/** Bounds one sweep's queries, so a sweep always ends and renews its lease in time. */
const MAX_QUERIES_PER_SWEEP = 10;

/**
 * Finds processes whose complete-by has passed and hands each to the state machine's `expire`:
 * below the threshold it goes back to Pending for another attempt, at it the workflow's policy
 * applies. It knows nothing of business operations. Several supervisors may run: a lease picks one
 * to sweep, and every recovery is a conditional write, so no expiry is ever recovered twice.
 */
export class Supervisor {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<SweepReport> | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly counters = { sweeps: 0, recovered: 0, leader: 0, delivered: 0, quarantined: 0, errors: 0 };

  constructor(private readonly deps: SupervisorDeps) {}

  private get interval(): number {
    return this.deps.sweepIntervalMs ?? 1000;
  }

  start(): void {
    if (this.interval > 0) {
      this.timer = setInterval(() => void this.sweep(), this.interval);
      this.timer.unref();
    }
    void this.sweep();
  }

  metrics(): Record<string, number> {
    return { ...this.counters };
  }

  /** One sweep, if this instance holds (or takes) the lease. Never overlaps itself. */
  sweep(): Promise<SweepReport> {
    this.sweeping ??= this.sweepOnce().finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  private async sweepOnce(): Promise<SweepReport> {
    const report: SweepReport = { leader: false, recovered: 0, skipped: 0, delivered: 0 };
    if (this.closed) return report;
    try {
      const now = new Date(this.deps.clock.now());
      report.leader = await this.deps.lease.acquire(LEASE, this.deps.instanceId, now, this.deps.leaseTtlMs ?? 3 * this.interval);
      this.counters.leader = report.leader ? 1 : 0;
      if (!report.leader) return report;
      this.counters.sweeps += 1;
      await this.recoverExpired(now, report);
      this.counters.recovered += report.recovered;
      report.delivered = await this.deliverOwed(now);
      if (report.recovered > 0) this.deps.logger.info(report, 'sweep recovered processes');
    } catch (e) {
      this.deps.logger.warn({ err: ensureError(e) }, 'sweep failed; the next one retries');
    }
    return report;
  }

  /**
   * Recovers every expired process. One that throws (a transient store error) or cannot be handled
   * yet is skipped for the rest of this sweep only, so it never blocks the ones behind it and is
   * tried again by the next sweep; one this build can never handle is given up to an operator.
   */
  private async recoverExpired(now: Date, report: SweepReport): Promise<void> {
    const batch = this.deps.batch ?? 100;
    const skipped = new Set<string>();
    let live: Promise<LiveAgents | undefined> | undefined;
    // Read only when something expired, and once per sweep; a failed read only makes the reasons plainer.
    const liveAgents = (): Promise<LiveAgents | undefined> => (live ??= this.deps.liveAgents?.(now).catch(() => undefined) ?? Promise.resolve(undefined));
    for (let round = 0; round < MAX_QUERIES_PER_SWEEP && !this.closed; round++) {
      const limit = batch + skipped.size;
      const found = await this.deps.store.findExpired(now, limit);
      const expired = found.filter((d) => !skipped.has(d._id));
      for (const summary of expired) {
        if (this.closed) break;
        try {
          const agents = await liveAgents();
          const outcome = await this.deps.engine.apply(summary._id, agents === undefined ? { type: 'expire' } : { type: 'expire', liveAgents: agents });
          if (outcome.kind === 'applied') {
            report.recovered += 1;
            this.deps.metrics?.recovered(outcome.process.workflow, recoveryAction(outcome.process, summary.mode));
          } else if (outcome.kind === 'unhandleable' && (await this.deps.engine.giveUp(summary, outcome)) === 'quarantined') {
            this.counters.quarantined += 1;
          } else {
            report.skipped += 1;
            skipped.add(summary._id);
          }
        } catch (e) {
          report.skipped += 1;
          skipped.add(summary._id);
          this.counters.errors += 1;
          this.deps.logger.warn({ err: ensureError(e), processId: summary._id, orderId: summary.orderId }, 'could not recover process; the next sweep retries it');
        }
      }
      if (found.length < limit || expired.length === 0) return;
    }
  }

  /**
   * Delivers outboxes that stayed full for longer than `outboxGraceMs`: whoever committed them
   * crashed (or lost Redis) before delivering. The writer normally delivers within milliseconds.
   */
  private async deliverOwed(now: Date): Promise<number> {
    const olderThan = new Date(now.getTime() - (this.deps.outboxGraceMs ?? 5000));
    const owed = await this.deps.store.findUndelivered(olderThan, this.deps.batch ?? 100);
    let delivered = 0;
    for (const doc of owed) {
      if (this.closed) break;
      if (await this.deps.engine.deliverOutbox(doc)) delivered += 1;
    }
    if (delivered > 0) this.deps.logger.warn({ delivered }, 'delivered outboxes left behind by a crash');
    this.counters.delivered += delivered;
    return delivered;
  }

  /** Stops sweeping and gives the lease up so a standby takes over at once. Idempotent: every call waits for the same close. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      if (this.timer) clearInterval(this.timer);
      await this.sweeping;
      await this.deps.lease.release(LEASE, this.deps.instanceId).catch(() => undefined);
    })();
    return this.closing;
  }
}
