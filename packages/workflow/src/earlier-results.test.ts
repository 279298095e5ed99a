import { createProcess } from './create-process';
import { earlierResults } from './earlier-results';
import { orderFulfilmentV1 } from './order-fulfilment';
import { T0 } from './test-support/process-run';

describe('earlierResults', () => {
  const doc = createProcess({ processId: 'p-1', orderId: 'o-1', payload: {}, replyTo: null, workflow: orderFulfilmentV1, now: T0 });
  // reserve-inventory returned { n: 0 }, charge-payment nothing that could be kept, create-shipment { n: 2 }.
  const steps = doc.steps.map((s, i) => ({ ...s, result: i === 1 ? null : { n: i } }));

  it('keeps only the steps before the index, by name', () => {
    expect(earlierResults(steps, 1)).toEqual({ 'reserve-inventory': { n: 0 } });
  });

  it('leaves out a step whose result is null, so its key is absent rather than null', () => {
    const results = earlierResults(steps, 3);
    expect(results).toEqual({ 'reserve-inventory': { n: 0 }, 'create-shipment': { n: 2 } });
    expect(Object.keys(results)).not.toContain('charge-payment');
  });

  it('is an empty object for the first step', () => {
    expect(earlierResults(steps, 0)).toEqual({});
  });
});
