import CircuitBreaker from 'opossum';
import type { Logger } from 'pino';
import { PermanentError, ensureError, type Clock } from '@sas/runtime';
import type { BreakerSnapshot, BreakerStateListener, Breakers } from './breakers';
import { CircuitOpenError } from './circuit-open-error';

/** How the breakers trip and recover; from `BREAKER_*` in the agent's config. */
export interface CircuitBreakerSettings {
  /** Share of failed calls in the rolling window above which the breaker opens. */
  errorThresholdPercentage: number;
  /** Calls the rolling window must hold before the breaker may open at all. */
  volumeThreshold: number;
  /** How long an open breaker refuses calls before it lets one trial call through. */
  resetTimeoutMs: number;
  /** Length of the rolling window of call statistics. */
  rollingWindowMs: number;
  /**
   * Smallest `retryAfterMs` ever handed out, so a parked step is not re-sent at once while a
   * trial call is still deciding. @default 1000
   */
  minRetryAfterMs?: number;
}

/** Options of {@link CircuitBreakers}. */
export interface CircuitBreakersOptions extends CircuitBreakerSettings {
  /** Stamps when a breaker opened, to tell callers when it will let calls through again. */
  clock: Clock;
  logger: Logger;
}

type Action = () => Promise<unknown>;

interface Entry {
  breaker: CircuitBreaker<[Action], unknown>;
  /** When the breaker last opened (clock ms); null unless open. */
  openedAt: number | null;
}

const DEFAULT_MIN_RETRY_AFTER_MS = 1000;

/**
 * {@link Breakers} on opossum: one breaker per remote service for the whole agent process, so every
 * request to a failing service shares what earlier requests learned and a down service sees only
 * the half-open trial calls instead of a retry storm.
 *
 * - `timeout: false`: the step's complete-by time, not the breaker, bounds how long a call may take.
 * - Only transient faults count as failures; a `PermanentError` (the remote said no) proves the
 *   remote is up, so opossum's `errorFilter` counts it as a success. A call aborted at complete-by
 *   counts as a failure: a hanging remote is exactly what the breaker must notice.
 * - opossum keeps its own timers (reset timeout, rolling window); the simulation substitutes
 *   another {@link Breakers} instead of driving them.
 */
export class CircuitBreakers implements Breakers {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<BreakerStateListener>();
  private readonly minRetryAfterMs: number;
  private closed = false;

  constructor(private readonly options: CircuitBreakersOptions) {
    this.minRetryAfterMs = options.minRetryAfterMs ?? DEFAULT_MIN_RETRY_AFTER_MS;
  }

  async call<T>(service: string, action: () => Promise<T>): Promise<T> {
    const entry = this.entry(service);
    try {
      // The breaker's action runs whatever it is given, so its result is the action's T.
      return (await entry.breaker.fire(action)) as T;
    } catch (e) {
      const err = ensureError(e);
      if (CircuitBreaker.isOurError(err) && (err as NodeJS.ErrnoException).code === 'EOPENBREAKER') {
        throw new CircuitOpenError(service, this.blockedFor(service) ?? this.minRetryAfterMs);
      }
      throw err;
    }
  }

  blockedFor(service: string): number | undefined {
    const entry = this.entries.get(service);
    if (!entry) return undefined;
    const { breaker } = entry;
    if (breaker.opened) {
      const now = this.options.clock.now();
      const retryAt = (entry.openedAt ?? now) + this.options.resetTimeoutMs;
      return Math.max(this.minRetryAfterMs, Math.ceil(retryAt - now));
    }
    // Half-open lets exactly one trial through; while it runs, everyone else waits for its verdict.
    if (breaker.halfOpen && !breaker.pendingClose) return this.minRetryAfterMs;
    return undefined;
  }

  state(service: string): BreakerSnapshot {
    const entry = this.entries.get(service);
    if (!entry) return { state: 'closed', retryAt: null };
    return snapshotOf(entry, this.options.resetTimeoutMs);
  }

  onStateChange(listener: BreakerStateListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops every breaker's timers. Idempotent; calls made afterwards are rejected. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const { breaker } of this.entries.values()) breaker.shutdown();
    this.listeners.clear();
  }

  private entry(service: string): Entry {
    const existing = this.entries.get(service);
    if (existing) return existing;
    if (this.closed) {
      throw new Error(`circuit breakers are closed (the agent is shutting down); cannot call ${service}`);
    }
    const breaker = new CircuitBreaker<[Action], unknown>((action) => action(), {
      name: service,
      timeout: false,
      errorThresholdPercentage: this.options.errorThresholdPercentage,
      volumeThreshold: this.options.volumeThreshold,
      resetTimeout: this.options.resetTimeoutMs,
      rollingCountTimeout: this.options.rollingWindowMs,
      rollingCountBuckets: 10,
      rollingPercentilesEnabled: false,
      enableSnapshots: false,
      errorFilter: (err: unknown) => err instanceof PermanentError,
    });
    const entry: Entry = { breaker, openedAt: null };
    const log = this.options.logger.child({ breaker: service });
    breaker.on('open', () => {
      entry.openedAt = this.options.clock.now();
      log.warn(
        { resetTimeoutMs: this.options.resetTimeoutMs },
        'circuit opened: calls are parked until a trial',
      );
      this.emit(service, entry);
    });
    breaker.on('halfOpen', () => {
      entry.openedAt = null;
      log.info('circuit half-open: the next call is a trial');
      this.emit(service, entry);
    });
    breaker.on('close', () => {
      entry.openedAt = null;
      log.info('circuit closed: calls flow again');
      this.emit(service, entry);
    });
    this.entries.set(service, entry);
    return entry;
  }

  private emit(service: string, entry: Entry): void {
    const snapshot = snapshotOf(entry, this.options.resetTimeoutMs);
    for (const listener of this.listeners) {
      // opossum emits from inside the call path: a throwing listener must not break a call.
      try {
        listener(service, snapshot);
      } catch (e) {
        this.options.logger.warn({ err: ensureError(e), breaker: service }, 'breaker state listener failed');
      }
    }
  }
}

function snapshotOf(entry: Entry, resetTimeoutMs: number): BreakerSnapshot {
  const { breaker } = entry;
  if (breaker.opened) {
    return { state: 'open', retryAt: entry.openedAt === null ? null : entry.openedAt + resetTimeoutMs };
  }
  if (breaker.halfOpen) return { state: 'halfOpen', retryAt: null };
  return { state: 'closed', retryAt: null };
}
