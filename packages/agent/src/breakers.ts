/** State of one service's breaker, as the dashboard and the reporter see it. */
export interface BreakerSnapshot {
  state: 'closed' | 'open' | 'halfOpen';
  /** When an open breaker next lets a trial call through (epoch ms); null unless open. */
  retryAt: number | null;
}

/** Called on every breaker state change. */
export type BreakerStateListener = (service: string, snapshot: BreakerSnapshot) => void;

/**
 * The circuit breakers as the agent worker sees them: one per remote service, counting only
 * transient faults. An interface so a simulation can run the worker with breakers on virtual
 * time; {@link CircuitBreakers} implements it with opossum.
 */
export interface Breakers {
  /**
   * Runs `action` through the service's breaker. Rejects with `CircuitOpenError` without running
   * it while the breaker is open (or half-open with its trial call already in flight); otherwise
   * settles as `action` does.
   */
  call<T>(service: string, action: () => Promise<T>): Promise<T>;
  /** Milliseconds until the service's breaker lets a call through; undefined when it does now. */
  blockedFor(service: string): number | undefined;
  /** The service's breaker state (closed when it has never been used). */
  state(service: string): BreakerSnapshot;
  /** Subscribes to state changes of every service's breaker; returns the unsubscribe function. */
  onStateChange(listener: BreakerStateListener): () => void;
}
