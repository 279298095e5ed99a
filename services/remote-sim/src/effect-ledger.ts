import type { RemoteServiceName } from './remote-operations';

/** One applied effect: a charge made, stock reserved, a shipment created, or one of their undos. */
export interface Effect {
  effectId: string;
  service: RemoteServiceName;
  operation: string;
  orderId: string;
  idempotencyKey: string;
  /** When it was applied, epoch ms from the injected clock. */
  at: number;
  result: Readonly<Record<string, unknown>>;
}

/** Which effects {@link EffectLedger.list} returns; absent fields match everything. */
export interface EffectFilter {
  service?: RemoteServiceName;
  orderId?: string;
}

/**
 * Every effect the simulated services applied, in order, keyed by (service, idempotency key).
 * It is the evidence behind "exactly one effect per step": tests read it to count effects, and the
 * simulator reads it to replay the first answer when a key comes back.
 */
export class EffectLedger {
  private readonly byKey = new Map<string, Effect>();
  private readonly ordered: Effect[] = [];

  /** The effect recorded under this service's idempotency key, if any. */
  find(service: RemoteServiceName, idempotencyKey: string): Effect | undefined {
    return this.byKey.get(keyOf(service, idempotencyKey));
  }

  /**
   * Appends an effect.
   *
   * @throws Error when the key already has an effect: the caller must check {@link find} first,
   * because recording twice is exactly the bug this ledger exists to expose.
   */
  record(effect: Effect): void {
    const key = keyOf(effect.service, effect.idempotencyKey);
    if (this.byKey.has(key)) {
      throw new Error(
        `Effect ledger already holds ${effect.service} key '${effect.idempotencyKey}'; replay the stored effect instead of recording again`,
      );
    }
    this.byKey.set(key, effect);
    this.ordered.push(effect);
  }

  /** Effects in the order applied, optionally narrowed to one service and/or order. */
  list(filter: EffectFilter = {}): Effect[] {
    return this.ordered.filter(
      (e) =>
        (filter.service === undefined || e.service === filter.service) &&
        (filter.orderId === undefined || e.orderId === filter.orderId),
    );
  }

  /** The most recent effect matching `predicate` (used by compensations to find what they undo). */
  findLast(predicate: (effect: Effect) => boolean): Effect | undefined {
    for (let i = this.ordered.length - 1; i >= 0; i--) {
      const effect = this.ordered[i];
      if (effect !== undefined && predicate(effect)) return effect;
    }
    return undefined;
  }

  /** Number of effects recorded. */
  get size(): number {
    return this.ordered.length;
  }

  /** Forgets every effect (between tests or demo runs). */
  clear(): void {
    this.byKey.clear();
    this.ordered.length = 0;
  }
}

// A NUL separator cannot occur in an HTTP header value, so keys of different services never collide.
function keyOf(service: RemoteServiceName, idempotencyKey: string): string {
  return `${service}\u0000${idempotencyKey}`;
}
