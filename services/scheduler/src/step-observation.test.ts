import type { AgentReply } from '@sas/contracts';
import { createProcess, orderFulfilmentV1 } from '@sas/workflow';
import { stepObservation } from './step-observation';

const T0 = Date.UTC(2030, 0, 1);
const reply: AgentReply = {
  schemaVersion: 1, processId: 'p-1', step: 'charge-payment', stepIndex: 1, mode: 'forward', attempt: 2,
  agent: 'payment', agentInstance: 'payment-1', at: T0, outcome: 'error', errorKind: 'permanent', message: 'declined',
};

describe('what the step duration histogram records for a reply', () => {
  const doc = createProcess({ processId: 'p-1', orderId: 'o-1', payload: {}, replyTo: null, workflow: orderFulfilmentV1, now: T0 });

  it("measures from the step's first dispatch to now, labelled by the reply", () => {
    const started = { ...doc, steps: doc.steps.map((s, i) => (i === 1 ? { ...s, startedAt: new Date(T0 - 2500) } : s)) };
    expect(stepObservation(reply, started, T0)).toEqual({
      workflow: 'order-fulfilment', step: 'charge-payment', agent: 'payment', mode: 'forward', outcome: 'error', seconds: 2.5,
    });
  });

  it('records nothing when the step has no start (its own compensation reset it)', () => {
    expect(stepObservation(reply, doc, T0)).toBeNull();
  });
});
