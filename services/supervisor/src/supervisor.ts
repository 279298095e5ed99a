import type { ProcessEngine } from '@sas/engine';
import { ensureError, type Clock } from '@sas/runtime';
import type { ProcessStore } from '@sas/store';
import type { Logger } from 'pino';
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
  /** Processes this instance cannot handle; skipped (and logged once) so they never block the sweep. */
  private readonly poisoned = new Set<string>();
  private closing: Promise<void> | undefined;
  private readonly counters = { sweeps: 0, recovered: 0, leader: 0, delivered: 0 };

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
      const batch = this.deps.batch ?? 100;
      const found = await this.deps.store.findExpired(now, batch + this.poisoned.size);
      const expired = found.filter((d) => !this.poisoned.has(d._id));
      for (const doc of expired) {
        if (this.closed) break;
        try {
          const outcome = await this.deps.engine.applyTo(doc, { type: 'expire' });
          if (outcome.kind === 'applied') report.recovered += 1;
          else report.skipped += 1;
        } catch (e) {
          // One process that cannot be handled here (e.g. its workflow version is not deployed)
          // must not stop the sweep of the others.
          report.skipped += 1;
          this.poisoned.add(doc._id);
          this.deps.logger.error({ err: ensureError(e), processId: doc._id, orderId: doc.orderId }, 'cannot recover process; skipping it');
        }
      }
      this.counters.recovered += report.recovered;
      report.delivered = await this.deliverOwed(now);
      if (report.recovered > 0) this.deps.logger.info(report, 'sweep recovered processes');
    } catch (e) {
      this.deps.logger.warn({ err: ensureError(e) }, 'sweep failed; the next one retries');
    }
    return report;
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
