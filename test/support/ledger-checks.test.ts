import type { ProcessDocument } from '@sas/contracts';
import { orderFulfilmentV1 } from '@sas/workflow';
import {
  forwardCallsAfterUndo,
  repeatedDispatches,
  repeatedEffects,
  resultsNotFromTheirEffect,
  undoPairs,
  undosBeforeForward,
  undosBeforeForwardAnswered,
  unundoneEffects,
  type LedgerArrival,
} from './ledger-checks';
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

let clock = 5000;
/** An arrival at the next instant; `answeredIn` ms later its answer was written (null: never). */
function arrival(kind: string, key: string, fields: Partial<LedgerArrival> & { answeredIn?: number | null } = {}): LedgerArrival {
  const [service = '', operation = ''] = kind.split('.');
  clock += 10;
  serial += 1;
  const { answeredIn = 1, ...rest } = fields;
  return {
    arrivalId: `arr-${serial}`,
    service,
    operation,
    mode: operation === 'refund' ? 'undo' : 'forward',
    orderId: 'o1',
    idempotencyKey: key,
    attempt: 1,
    try: 1,
    at: clock,
    outcome: 'ok',
    applied: true,
    ...(answeredIn === null ? {} : { answeredAt: clock + answeredIn }),
    ...rest,
  };
}
const undo = (fields: Partial<LedgerArrival> = {}): LedgerArrival =>
  arrival('payment.refund', 'p1/charge/compensate', { compensates: 'p1/charge', attempt: 9, ...fields });

describe('forwardCallsAfterUndo', () => {
  it('finds nothing when every forward call arrived before the undo naming it', () => {
    expect(forwardCallsAfterUndo([arrival('payment.charge', 'p1/charge'), undo()])).toEqual([]);
  });

  it('names a forward call that arrived after the undo naming it, and says whether it took effect', () => {
    const arrivals = [undo(), arrival('payment.charge', 'p1/charge', { attempt: 4 }), arrival('payment.charge', 'p1/charge', { applied: false, try: 2, attempt: 4 })];
    expect(forwardCallsAfterUndo(arrivals)).toEqual([
      expect.stringMatching(/^order o1: payment\.charge 'p1\/charge' \(arr-\d+ attempt 4 at \d+\) arrived after the payment\.refund that undoes it \(arr-\d+ attempt 9 at \d+\) and took effect$/),
      expect.stringMatching(/arrived after the payment\.refund that undoes it \(arr-\d+ attempt 9 at \d+\)$/),
    ]);
  });

  it('ignores forward calls under other keys and undos that name no key', () => {
    const arrivals = [undo(), arrival('payment.charge', 'p2/charge'), arrival('payment.refund', 'p3/charge/compensate'), arrival('payment.charge', 'p3/charge')];
    expect(forwardCallsAfterUndo(arrivals)).toEqual([]);
  });
});

describe('undosBeforeForwardAnswered', () => {
  it('finds nothing when the forward call was answered, or its client gone, before the undo arrived', () => {
    const answered = arrival('payment.charge', 'p1/charge', { answeredIn: 5 });
    const left = arrival('payment.charge', 'p1/charge', { answeredIn: null, abandonedAt: clock + 12, attempt: 2 });
    expect(undosBeforeForwardAnswered([answered, left, undo()])).toEqual([]);
  });

  it('names an undo that arrived while its forward call was held', () => {
    const held = arrival('payment.charge', 'p1/charge', { answeredIn: 500 });
    expect(undosBeforeForwardAnswered([held, undo()])).toEqual([
      expect.stringMatching(
        /^order o1: payment\.refund \(arr-\d+ attempt 9 at \d+\) arrived while the payment\.charge it undoes \(arr-\d+ attempt 1 at \d+\) was still unanswered; that call was answered at \d+$/,
      ),
    ]);
  });

  it('names an undo whose forward call was never answered nor left', () => {
    const arrivals = [arrival('payment.charge', 'p1/charge', { answeredIn: null }), undo()];
    expect(undosBeforeForwardAnswered(arrivals)).toEqual([expect.stringMatching(/still unanswered; that call was never answered$/)]);
  });
});

describe('repeatedDispatches', () => {
  it('finds nothing for one dispatch per attempt, retried by its agent', () => {
    const arrivals = [arrival('payment.charge', 'p1/charge'), arrival('payment.charge', 'p1/charge', { try: 2 }), arrival('payment.charge', 'p1/charge', { attempt: 3 })];
    expect(repeatedDispatches(arrivals)).toEqual([]);
  });

  it('names a step and attempt whose first try arrived twice, though the remote replayed the second', () => {
    const arrivals = [arrival('payment.charge', 'p1/charge', { attempt: 5 }), arrival('payment.charge', 'p1/charge', { attempt: 5, applied: false, outcome: 'replayed' })];
    expect(repeatedDispatches(arrivals)).toEqual([
      expect.stringMatching(/^order o1: payment\.charge 'p1\/charge' attempt 5 was dispatched 2 times \(arr-\d+ attempt 5 at \d+, arr-\d+ attempt 5 at \d+\)$/),
    ]);
  });

  it('cannot pass an arrival that names no attempt', () => {
    const bare = arrival('payment.charge', 'p1/charge');
    delete bare.attempt;
    expect(repeatedDispatches([bare])).toEqual([`order o1: payment.charge ${bare.arrivalId} names no attempt and try, so its dispatch cannot be checked`]);
  });
});

describe('resultsNotFromTheirEffect', () => {
  const charge = effect('o1', 'payment.charge', 'p1/charge');
  const doc = (result: Record<string, unknown> | null, state = 'Completed'): ProcessDocument =>
    ({ orderId: 'o1', steps: [{ name: 'charge', state, idempotencyKey: 'p1/charge', result }] }) as unknown as ProcessDocument;

  it('finds nothing when each completed step holds the answer of its effect', () => {
    expect(resultsNotFromTheirEffect([doc({ effectId: charge.effectId, amount: 1 })], [charge])).toEqual([]);
  });

  it('ignores steps that did not complete', () => {
    expect(resultsNotFromTheirEffect([doc(null, 'Running')], [])).toEqual([]);
  });

  it('names a step holding a result its effect never gave, or one with no effect at all', () => {
    expect(resultsNotFromTheirEffect([doc({ effectId: 'eff-forged' })], [charge])).toEqual([
      `order o1: step charge holds the result of "eff-forged", but the remote applied effect ${charge.effectId}`,
    ]);
    expect(resultsNotFromTheirEffect([doc({ effectId: 'eff-forged' })], [])).toEqual([
      'order o1: step charge holds the result of "eff-forged", but the remote applied no effect under its key',
    ]);
  });
});
