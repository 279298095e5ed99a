import { orderFulfilmentV1 } from '@sas/workflow';
import { repeatedEffects, undoPairs, undosBeforeForward, unundoneEffects } from './ledger-checks';
import type { LedgerEffect } from './system-fixture';

let serial = 0;
function effect(orderId: string, kind: string, idempotencyKey: string, compensates?: string): LedgerEffect {
  const [service = '', operation = ''] = kind.split('.');
  serial += 1;
  return {
    effectId: `eff-${serial}`,
    service,
    operation,
    orderId,
    idempotencyKey,
    at: 1000 + serial,
    result: {},
    ...(compensates === undefined ? {} : { compensates }),
  };
}

const undoOf = undoPairs([orderFulfilmentV1]);

describe('undoPairs', () => {
  it('reads every forward → undo pair from the workflow steps', () => {
    expect(Object.fromEntries(undoOf)).toEqual({
      'inventory.reserve': 'inventory.release',
      'payment.charge': 'payment.refund',
      'shipping.create': 'shipping.cancel',
    });
  });
});

describe('repeatedEffects', () => {
  it('finds nothing when each order has each operation once', () => {
    const ledger = [effect('o1', 'payment.charge', 'p1/charge'), effect('o2', 'payment.charge', 'p2/charge'), effect('o1', 'payment.refund', 'p1/charge/compensate')];
    expect(repeatedEffects(ledger)).toEqual([]);
  });

  it('names an order charged twice under two different keys', () => {
    const ledger = [effect('o1', 'payment.charge', 'p1/charge#1'), effect('o1', 'inventory.reserve', 'p1/reserve'), effect('o1', 'payment.charge', 'p1/charge#2')];
    expect(repeatedEffects(ledger)).toEqual(['order o1: payment.charge took effect 2 times (keys p1/charge#1, p1/charge#2)']);
  });
});

describe('unundoneEffects', () => {
  it('names a forward effect of a listed order that has no undo', () => {
    const ledger = [effect('o1', 'inventory.reserve', 'p1/reserve'), effect('o1', 'payment.charge', 'p1/charge'), effect('o1', 'inventory.release', 'p1/reserve/compensate', 'p1/reserve')];
    expect(unundoneEffects(ledger, ['o1'], undoOf)).toEqual([
      expect.stringMatching(/^order o1: payment\.charge \(eff-\d+, key p1\/charge\) was never undone by payment\.refund$/),
    ]);
  });

  it('ignores orders that are not listed and effects that are undos', () => {
    const ledger = [effect('o2', 'payment.charge', 'p2/charge'), effect('o1', 'payment.refund', 'p1/charge/compensate', 'p1/charge')];
    expect(unundoneEffects(ledger, ['o1'], undoOf)).toEqual([]);
  });

  it('does not take an undo that names another forward key for this one', () => {
    const ledger = [effect('o1', 'payment.charge', 'p1/charge'), effect('o1', 'payment.refund', 'p9/charge/compensate', 'p9/charge')];
    expect(unundoneEffects(ledger, ['o1'], undoOf)).toHaveLength(1);
  });

  it('accepts an undo that names no forward key (older callers)', () => {
    const ledger = [effect('o1', 'payment.charge', 'p1/charge'), effect('o1', 'payment.refund', 'p1/charge/compensate')];
    expect(unundoneEffects(ledger, ['o1'], undoOf)).toEqual([]);
  });
});

describe('undosBeforeForward', () => {
  it('finds nothing when every undo follows its forward effect', () => {
    const ledger = [effect('o1', 'payment.charge', 'p1/charge'), effect('o1', 'payment.refund', 'p1/charge/compensate', 'p1/charge')];
    expect(undosBeforeForward(ledger, undoOf)).toEqual([]);
  });

  it('finds nothing for an undo whose forward call never took effect', () => {
    expect(undosBeforeForward([effect('o1', 'payment.refund', 'p1/charge/compensate', 'p1/charge')], undoOf)).toEqual([]);
  });

  it('names an undo that overtook its forward effect', () => {
    const ledger = [effect('o1', 'payment.refund', 'p1/charge/compensate', 'p1/charge'), effect('o1', 'payment.charge', 'p1/charge')];
    expect(undosBeforeForward(ledger, undoOf)).toEqual([
      expect.stringMatching(/^order o1: payment\.refund \(eff-\d+ at \d+\) took effect before the payment\.charge it undoes \(eff-\d+ at \d+\), so that payment\.charge stays in place$/),
    ]);
  });
});
