import { submissionFingerprint } from '@sas/contracts';
import { submissionJobId } from './submission-job-id';

const order = { orderId: 'order-1', workflow: 'order-fulfilment', payload: { sku: 'kettle', amount: 2500 }, replyTo: 'app.status' };

describe('submissionJobId', () => {
  it('is the orderId and the first 16 hex digits of the submission fingerprint', () => {
    expect(submissionJobId(order)).toBe(`order-1.${submissionFingerprint(order).slice(0, 16)}`);
  });

  it('is the same for the same submission written with its keys in another order', () => {
    expect(submissionJobId({ replyTo: 'app.status', payload: { amount: 2500, sku: 'kettle' }, workflow: 'order-fulfilment', orderId: 'order-1' })).toBe(submissionJobId(order));
  });

  it('differs for a different submission under the same orderId', () => {
    expect(submissionJobId({ ...order, payload: { sku: 'kettle', amount: 2600 } })).not.toBe(submissionJobId(order));
  });

  it('encodes characters BullMQ refuses in job ids, without merging distinct orderIds', () => {
    expect(submissionJobId({ ...order, orderId: 'shop:1' })).toMatch(/^shop%3A1\.[0-9a-f]{16}$/);
    expect(submissionJobId({ ...order, orderId: 'shop:1' })).not.toBe(submissionJobId({ ...order, orderId: 'shop%3A1' }));
  });
});
