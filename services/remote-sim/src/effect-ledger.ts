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
  /**
   * Only on an undo that named the forward call it compensates: that call's idempotency key. From
   * then on a forward call under this key is refused (the key is tombstoned), so a forward call
   * still queued or retrying cannot overtake its undo. Absent on forward effects and on undos that
   * named nothing (older callers); readers of `GET /ledger` must treat it as optional.
   */
  compensates?: string;
  /**
   * The earlier steps' results the call was given (its body's `results`), as first applied: a
   * replay does not change them. Absent when the caller sent none; readers of `GET /ledger` must
   * treat it as optional.
   */
  inputs?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** Which effects {@link EffectLedger.list} returns; absent fields match everything. */
export interface EffectFilter {
  service?: RemoteServiceName;
  orderId?: string;
  idempotencyKey?: string;
}

/**
 * Every effect the simulated services applied, in order, keyed by (service, idempotency key).
 * It is the evidence behind "exactly one effect per step": tests read it to count effects, and the
 * simulator reads it to replay the first answer when a key comes back.
 */
export class EffectLedger {
  private readonly byKey = new Map<string, Effect>();
  // Tombstones: forward key -> the first undo that named it. Kept beside the effects, so clearing
  // the ledger clears them too and the ledger alone explains every refusal.
  private readonly undoByForwardKey = new Map<string, Effect>();
  private readonly ordered: Effect[] = [];

  /** The effect recorded under this service's idempotency key, if any. */
  find(service: RemoteServiceName, idempotencyKey: string): Effect | undefined {
    return this.byKey.get(keyOf(service, idempotencyKey));
  }

  /**
   * The undo that tombstoned this service's forward key (its `compensates`), if any. A forward
   * call under that key must then be refused: applied after its undo, it would never be undone.
   */
  undoOf(service: RemoteServiceName, forwardKey: string): Effect | undefined {
    return this.undoByForwardKey.get(keyOf(service, forwardKey));
  }

  /**
   * Appends an effect; an undo with `compensates` also tombstones that forward key (the first undo
   * naming a key keeps the tombstone).
   *
   * @throws Error when the key already has an effect: the caller must check {@link find} first,
   * because recording twice is exactly the bug this ledger exists to expose. Only a remote that
   * ignores keys (the `keyless` mode) records a repeat, with `repeat: true`; {@link find} keeps
   * answering the first.
   */
  record(effect: Effect, options: { repeat?: boolean } = {}): void {
    const key = keyOf(effect.service, effect.idempotencyKey);
    if (this.byKey.has(key) && options.repeat !== true) {
      throw new Error(
        `Effect ledger already holds ${effect.service} key '${effect.idempotencyKey}'; replay the stored effect instead of recording again`,
      );
    }
    if (!this.byKey.has(key)) this.byKey.set(key, effect);
    if (effect.compensates !== undefined) {
      const forward = keyOf(effect.service, effect.compensates);
      if (!this.undoByForwardKey.has(forward)) this.undoByForwardKey.set(forward, effect);
    }
    this.ordered.push(effect);
  }

  /** Effects in the order applied, optionally narrowed to one service, order and/or idempotency key. */
  list(filter: EffectFilter = {}): Effect[] {
    return this.ordered.filter(
      (e) =>
        (filter.service === undefined || e.service === filter.service) &&
        (filter.orderId === undefined || e.orderId === filter.orderId) &&
        (filter.idempotencyKey === undefined || e.idempotencyKey === filter.idempotencyKey),
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

  /**
   * Removes one effect, as a record store's `DELETE /records/:id` does (a keyless remote's undo);
   * returns it, or undefined when there is none. Its key then answers the next effect under it, if
   * any; tombstones stay.
   */
  remove(effectId: string): Effect | undefined {
    const at = this.ordered.findIndex((e) => e.effectId === effectId);
    const effect = this.ordered[at];
    if (effect === undefined) return undefined;
    this.ordered.splice(at, 1);
    const key = keyOf(effect.service, effect.idempotencyKey);
    if (this.byKey.get(key) === effect) {
      const next = this.ordered.find((e) => keyOf(e.service, e.idempotencyKey) === key);
      if (next) this.byKey.set(key, next);
      else this.byKey.delete(key);
    }
    return effect;
  }

  /** Number of effects recorded. */
  get size(): number {
    return this.ordered.length;
  }

  /** Forgets every effect (between tests or demo runs). */
  clear(): void {
    this.byKey.clear();
    this.undoByForwardKey.clear();
    this.ordered.length = 0;
  }
}

// A NUL separator cannot occur in an HTTP header value, so keys of different services never collide.
function keyOf(service: RemoteServiceName, idempotencyKey: string): string {
  return `${service}\u0000${idempotencyKey}`;
}
