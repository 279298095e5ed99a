import { createProcess } from './create-process';
import { orderFulfilmentV1 } from './order-fulfilment';
import { isExpired } from './recover';

const T0 = Date.UTC(2030, 0, 1);
const pending = createProcess({
  processId: 'p',
  orderId: 'o',
  payload: {},
  replyTo: null,
  workflow: orderFulfilmentV1,
  now: T0,
});

describe('isExpired', () => {
  it('is true for a held process from its complete-by time on', () => {
    for (const state of ['Processing', 'Compensating'] as const) {
      const held = { ...pending, state, completeBy: new Date(T0 + 5000) };
      expect([T0 + 4999, T0 + 5000, T0 + 9000].map((now) => isExpired(held, now))).toEqual([
        false,
        true,
        true,
      ]);
    }
  });

  it('is false for a process nobody holds, whatever its times', () => {
    for (const state of ['Pending', 'Processed', 'Error', 'Compensated', 'Canceled'] as const) {
      expect(isExpired({ ...pending, state, completeBy: new Date(T0) }, T0 + 60_000)).toBe(false);
    }
  });
});
