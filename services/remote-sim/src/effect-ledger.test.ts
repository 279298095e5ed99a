import { EffectLedger, type Effect } from './effect-ledger';

function effect(overrides: Partial<Effect>): Effect {
  return {
    effectId: 'eff-1',
    service: 'payment',
    operation: 'charge',
    orderId: 'o-1',
    idempotencyKey: 'k-1',
    at: 1000,
    result: { chargeId: 'ch-1', amount: 5 },
    ...overrides,
  };
}

describe('EffectLedger', () => {
  it('finds an effect by service and idempotency key', () => {
    const ledger = new EffectLedger();
    ledger.record(effect({}));
    expect(ledger.find('payment', 'k-1')?.effectId).toBe('eff-1');
    expect(ledger.find('payment', 'k-2')).toBeUndefined();
  });

  it('keeps the same key of different services apart', () => {
    const ledger = new EffectLedger();
    ledger.record(effect({}));
    ledger.record(effect({ effectId: 'eff-2', service: 'inventory', operation: 'reserve' }));
    expect(ledger.find('payment', 'k-1')?.effectId).toBe('eff-1');
    expect(ledger.find('inventory', 'k-1')?.effectId).toBe('eff-2');
    expect(ledger.find('shipping', 'k-1')).toBeUndefined();
  });

  it('refuses to record a second effect under a key it already holds', () => {
    const ledger = new EffectLedger();
    ledger.record(effect({}));
    expect(() => ledger.record(effect({ effectId: 'eff-2' }))).toThrow(
      "Effect ledger already holds payment key 'k-1'; replay the stored effect instead of recording again",
    );
    expect(ledger.size).toBe(1);
  });

  it('lists effects in the order applied, filtered by service and order', () => {
    const ledger = new EffectLedger();
    ledger.record(effect({ effectId: 'a', idempotencyKey: 'k-a', orderId: 'o-1' }));
    ledger.record(effect({ effectId: 'b', idempotencyKey: 'k-b', orderId: 'o-2', service: 'shipping', operation: 'create' }));
    ledger.record(effect({ effectId: 'c', idempotencyKey: 'k-c', orderId: 'o-2' }));
    expect(ledger.list().map((e) => e.effectId)).toEqual(['a', 'b', 'c']);
    expect(ledger.list({ orderId: 'o-2' }).map((e) => e.effectId)).toEqual(['b', 'c']);
    expect(ledger.list({ service: 'payment', orderId: 'o-2' }).map((e) => e.effectId)).toEqual(['c']);
  });

  it('finds the most recent effect matching a predicate', () => {
    const ledger = new EffectLedger();
    ledger.record(effect({ effectId: 'a', idempotencyKey: 'k-a' }));
    ledger.record(effect({ effectId: 'b', idempotencyKey: 'k-b' }));
    expect(ledger.findLast((e) => e.orderId === 'o-1')?.effectId).toBe('b');
    expect(ledger.findLast((e) => e.orderId === 'nope')).toBeUndefined();
  });

  it('forgets everything on clear, so a key can be used again', () => {
    const ledger = new EffectLedger();
    ledger.record(effect({}));
    ledger.clear();
    expect(ledger.size).toBe(0);
    expect(ledger.find('payment', 'k-1')).toBeUndefined();
    ledger.record(effect({ effectId: 'eff-2' }));
    expect(ledger.list().map((e) => e.effectId)).toEqual(['eff-2']);
  });
});
