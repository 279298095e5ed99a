import { CircuitOpenError, type BreakerSnapshot, type BreakerStateListener, type Breakers } from '@sas/agent';
import { PermanentError, type Clock } from '@sas/runtime';

interface Entry {
  state: BreakerSnapshot['state'];
  failures: number;
  openedAt: number;
  trialInFlight: boolean;
}

/**
 * {@link Breakers} on virtual time for the simulation (opossum keeps real timers): it opens after
 * `threshold` transient failures in a row, refuses calls for `resetTimeoutMs`, then lets one trial
 * call through; as with the real breakers, a `PermanentError` proves the remote is up.
 */
export class SimBreakers implements Breakers {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<BreakerStateListener>();

  constructor(
    private readonly clock: Clock,
    private readonly threshold = 5,
    private readonly resetTimeoutMs = 5_000,
  ) {}

  async call<T>(service: string, action: () => Promise<T>): Promise<T> {
    const entry = this.entry(service);
    if (entry.state === 'open') {
      const left = entry.openedAt + this.resetTimeoutMs - this.clock.now();
      if (left > 0) throw new CircuitOpenError(service, Math.max(1000, left));
      this.set(service, entry, 'halfOpen');
    }
    if (entry.state === 'halfOpen') {
      if (entry.trialInFlight) throw new CircuitOpenError(service, 1000);
      entry.trialInFlight = true;
    }
    try {
      const value = await action();
      this.succeeded(service, entry);
      return value;
    } catch (e) {
      if (e instanceof PermanentError) this.succeeded(service, entry);
      else this.failed(service, entry);
      throw e;
    }
  }

  blockedFor(service: string): number | undefined {
    const entry = this.entry(service);
    if (entry.state !== 'open') return undefined;
    const left = entry.openedAt + this.resetTimeoutMs - this.clock.now();
    return left > 0 ? Math.max(1000, left) : undefined;
  }

  state(service: string): BreakerSnapshot {
    const entry = this.entry(service);
    return { state: entry.state, retryAt: entry.state === 'open' ? entry.openedAt + this.resetTimeoutMs : null };
  }

  onStateChange(listener: BreakerStateListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private entry(service: string): Entry {
    let entry = this.entries.get(service);
    if (!entry) {
      entry = { state: 'closed', failures: 0, openedAt: 0, trialInFlight: false };
      this.entries.set(service, entry);
    }
    return entry;
  }

  private succeeded(service: string, entry: Entry): void {
    entry.failures = 0;
    entry.trialInFlight = false;
    if (entry.state !== 'closed') this.set(service, entry, 'closed');
  }

  private failed(service: string, entry: Entry): void {
    entry.failures += 1;
    entry.trialInFlight = false;
    if (entry.state === 'halfOpen' || entry.failures >= this.threshold) {
      entry.openedAt = this.clock.now();
      this.set(service, entry, 'open');
    }
  }

  private set(service: string, entry: Entry, state: BreakerSnapshot['state']): void {
    entry.state = state;
    const snapshot = this.state(service);
    for (const listener of this.listeners) listener(service, snapshot);
  }
}
