import { ProcessDocument } from '@sas/contracts';
import { createProcess } from './create-process';
import { orderFulfilmentV1 } from './order-fulfilment';

const T0 = Date.UTC(2030, 0, 1);

describe('createProcess', () => {
  const doc = createProcess({
    processId: 'p-1',
    orderId: 'o-1',
    payload: { sku: 'sku-1' },
    replyTo: 'app.status',
    workflow: orderFulfilmentV1,
    now: T0,
  });

  it('makes a Pending, unlocked process that a scheduler may claim at once', () => {
    expect(doc).toMatchObject({
      _id: 'p-1',
      orderId: 'o-1',
      workflow: 'order-fulfilment',
      workflowVersion: 1,
      state: 'Pending',
      mode: 'forward',
      lockedBy: null,
      completeBy: null,
      failureCount: 0,
      revision: 0,
      attempt: 0,
      currentStep: 0,
      waits: 0,
      canceled: false,
      replyTo: 'app.status',
      deleteTime: null,
    });
    expect(doc.notBefore).toEqual(new Date(T0));
    expect(doc.createdAt).toEqual(new Date(T0));
  });

  it('records every step of the workflow as NotStarted under its forward idempotency key', () => {
    expect(
      doc.steps.map((s) => [s.name, s.agent, s.operation, s.compensation, s.state, s.idempotencyKey]),
    ).toEqual([
      ['reserve-inventory', 'inventory', 'reserve', 'release', 'NotStarted', 'p-1/reserve-inventory'],
      ['charge-payment', 'payment', 'charge', 'refund', 'NotStarted', 'p-1/charge-payment'],
      ['create-shipment', 'shipping', 'create', 'cancel', 'NotStarted', 'p-1/create-shipment'],
    ]);
    expect(doc.steps.every((s) => s.dispatches === 0 && s.startedAt === null && s.result === null)).toBe(
      true,
    );
  });

  it('satisfies the stored document schema', () => {
    expect(ProcessDocument.safeParse(doc).success).toBe(true);
  });
});
