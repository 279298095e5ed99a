import { MissingReferenceError, fillJson, fillString, referenceProblem, referencesAt, referencesIn, type TemplateScope } from './template';

const scope: TemplateScope = {
  agent: 'warehouse',
  operation: 'reserve',
  orderId: 'order 7/a',
  processId: 'proc-7',
  step: 'reserve-stock',
  attempt: 4,
  try: 1,
  mode: 'forward',
  idempotencyKey: 'order 7/a/reserve-stock/forward',
  payload: { sku: 'A-1', quantity: 2, lines: [{ sku: 'A-1' }] },
  results: { 'charge-payment': { chargeId: 'ch-9' } },
  compensates: undefined,
  env: { BASE: 'https://wh.example/api', TOKEN: 's3cret' },
};

describe('templates of the HTTP mapping', () => {
  it('URL-encodes what comes from the request but not what comes from the environment', () => {
    expect(fillString('{env.BASE}/orders/{orderId}/{results.charge-payment.chargeId}', scope, encodeURIComponent)).toBe(
      'https://wh.example/api/orders/order%207%2Fa/ch-9',
    );
  });

  it('fills header text from the environment', () => {
    expect(fillString('Bearer {env.TOKEN}', scope)).toBe('Bearer s3cret');
  });

  it('inserts the referenced JSON value for a body leaf that is one reference, and text otherwise', () => {
    expect(
      fillJson({ qty: '{payload.quantity}', lines: '{payload.lines}', note: 'order {orderId}', fixed: [1, null, true] }, scope),
    ).toEqual({ qty: 2, lines: [{ sku: 'A-1' }], note: 'order order 7/a', fixed: [1, null, true] });
  });

  it('throws MissingReferenceError naming a reference the request does not carry', () => {
    expect(() => fillJson({ chargeId: '{compensates.result.chargeId}' }, scope)).toThrow(MissingReferenceError);
    expect(() => fillString('{payload.nope}', scope)).toThrow('{payload.nope} has no value');
  });

  it('lists references and refuses unknown roots, saying which ones exist', () => {
    expect(referencesIn({ a: ['{orderId}', 'x {env.A} {payload.b.c}'] })).toEqual(['orderId', 'env.A', 'payload.b.c']);
    expect(referenceProblem('payload.amount')).toBeNull();
    expect(referenceProblem('order.id')).toBe(
      '{order.id} is not a known reference; start it with one of agent, operation, orderId, processId, step, attempt, try, mode, idempotencyKey, payload, results, compensates, env',
    );
    expect(referenceProblem('env.A.B')).toBe('{env.A.B} must name one variable: {env.NAME}');
  });

  it('checks every segment of a reference, not only its root', () => {
    for (const ok of ['orderId', 'payload', 'payload.lines.0.sku', 'results', 'results.charge-payment.chargeId', 'compensates', 'compensates.idempotencyKey', 'compensates.result', 'compensates.result.reservation.id', 'env.TOKEN']) {
      expect([ok, referenceProblem(ok)]).toEqual([ok, null]);
    }
    expect(referenceProblem('compensates.foo.id')).toBe(
      '{compensates.foo.id}: compensates holds idempotencyKey and result only; write {compensates.idempotencyKey} or {compensates.result.FIELD}',
    );
    expect(referenceProblem('compensates.idempotencyKey.x')).toBe(
      '{compensates.idempotencyKey.x}: compensates.idempotencyKey is text and has no fields; write {compensates.idempotencyKey}',
    );
    expect(referenceProblem('orderId.id')).toBe('{orderId.id}: orderId is text and has no fields; write {orderId}');
  });

  it('fills {compensates.idempotencyKey} with the key of the forward call being undone', () => {
    const undo = { ...scope, mode: 'compensate', compensates: { idempotencyKey: 'order 7/a/reserve-stock/forward', result: null } };
    expect(fillString('/undo/{compensates.idempotencyKey}', undo, encodeURIComponent)).toBe('/undo/order%207%2Fa%2Freserve-stock%2Fforward');
    expect(fillJson({ undoes: '{compensates.idempotencyKey}' }, undo)).toEqual({ undoes: 'order 7/a/reserve-stock/forward' });
  });

  it('places each reference of a JSON template at the field that holds it', () => {
    expect(referencesAt({ a: ['{orderId}'], b: { c: 'x {env.A}' } })).toEqual([
      { reference: 'orderId', at: ['a', 0] },
      { reference: 'env.A', at: ['b', 'c'] },
    ]);
  });
});
