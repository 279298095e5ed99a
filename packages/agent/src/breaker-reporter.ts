import type { Logger } from 'pino';
import type { BreakerStateDocument } from '@sas/contracts';
import { ensureError, type Clock } from '@sas/runtime';
import type { Breakers } from './breakers';
import type { Sleep } from './sleep';

/** Where breaker states go; `BreakerRepository` from `@sas/store` in production. */
export interface BreakerReportSink {
  report(doc: BreakerStateDocument): Promise<void>;
}

/** Options of {@link BreakerReporter}. */
export interface BreakerReporterOptions {
  agent: string;
  instanceId: string;
  clock: Clock;
  sleep: Sleep;
  sink: BreakerReportSink;
  breakers: Pick<Breakers, 'state' | 'onStateChange'>;
  /** Heartbeat period; a document expires after three missed heartbeats. @default 5000 */
  intervalMs?: number;
  logger: Logger;
}

/**
 * Keeps this agent instance's breaker state in the store for the dashboard: on every state change
 * and on a heartbeat. Each document expires (`deleteTime`) three heartbeats ahead, so an agent
 * that stops simply vanishes. Writes are serialised and each writes the state current when it
 * starts, so the last write is always the latest state. A failing write is logged, never fatal:
 * the breaker works without the store.
 */
export class BreakerReporter {
  private readonly intervalMs: number;
  private readonly stopping = new AbortController();
  private chain: Promise<void> = Promise.resolve();
  private loop: Promise<void> | undefined;
  private unsubscribe: (() => void) | undefined;
  private closing: Promise<void> | undefined;
  private failures = 0;

  constructor(private readonly options: BreakerReporterOptions) {
    this.intervalMs = options.intervalMs ?? 5000;
    if (!(this.intervalMs > 0)) {
      throw new Error(`BREAKER_REPORT_INTERVAL_MS must be positive (got ${this.intervalMs})`);
    }
  }

  /** Reports now, then on every state change and every `intervalMs` until {@link close}. */
  start(): void {
    if (this.loop || this.closing) return;
    this.unsubscribe = this.options.breakers.onStateChange((service) => {
      if (service === this.options.agent) void this.reportNow();
    });
    this.loop = this.heartbeat();
  }

  /** Writes the current state (after any write already under way). Never rejects. */
  reportNow(): Promise<void> {
    this.chain = this.chain.then(() => this.write());
    return this.chain;
  }

  /** Failed writes so far, for `/metrics`. */
  failedReports(): number {
    return this.failures;
  }

  /** Stops the heartbeat and waits for writes under way. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.unsubscribe?.();
      this.stopping.abort();
      await this.loop;
      await this.chain;
    })();
    return this.closing;
  }

  private async heartbeat(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      await this.reportNow();
      await this.options.sleep(this.intervalMs, this.stopping.signal);
    }
  }

  private async write(): Promise<void> {
    const { agent, instanceId, clock } = this.options;
    const snapshot = this.options.breakers.state(agent);
    const now = clock.now();
    const doc: BreakerStateDocument = {
      _id: `${agent}/${instanceId}`,
      agent,
      instanceId,
      state: snapshot.state,
      retryAt: snapshot.state === 'open' && snapshot.retryAt !== null ? new Date(snapshot.retryAt) : null,
      updatedAt: new Date(now),
      deleteTime: new Date(now + 3 * this.intervalMs),
    };
    try {
      await this.options.sink.report(doc);
    } catch (e) {
      this.failures += 1;
      this.options.logger.warn(
        { err: ensureError(e).message, state: doc.state },
        'could not report breaker state to the store; will try again on the next change or heartbeat',
      );
    }
  }
}
