import { canonicalJson, submissionFingerprint } from './submission-fingerprint';

const order = { workflow: 'order-fulfilment', payload: { sku: 'kettle', amount: 2500, lines: [{ a: 1, b: 2 }] }, replyTo: 'app.status' };

describe('submissionFingerprint', () => {
  it('is the same whatever order the keys were written in', () => {
    const reordered = { replyTo: 'app.status', payload: { lines: [{ b: 2, a: 1 }], amount: 2500, sku: 'kettle' }, workflow: 'order-fulfilment' };
    expect(submissionFingerprint(reordered)).toBe(submissionFingerprint(order));
  });

  it('differs when the payload, the pinned version or the reply queue differ', () => {
    const base = submissionFingerprint(order);
    expect(submissionFingerprint({ ...order, payload: { ...order.payload, amount: 2501 } })).not.toBe(base);
    expect(submissionFingerprint({ ...order, workflowVersion: 1 })).not.toBe(base);
    expect(submissionFingerprint({ ...order, replyTo: 'other.status' })).not.toBe(base);
  });

  it('leaves undefined members out and keeps array order', () => {
    expect(canonicalJson({ b: [2, 1], a: undefined, c: null })).toBe('{"b":[2,1],"c":null}');
  });
});
