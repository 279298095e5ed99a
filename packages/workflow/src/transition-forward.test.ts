import { QueueNames } from '@sas/contracts';
import type { Action } from './action';
import { orderFulfilmentManualV1, orderFulfilmentV1 } from './order-fulfilment';
import { transition } from './transition';
import { statusEvents } from './test-support/action-filters';
import { ProcessRun, T0 } from './test-support/process-run';
import { ok } from './test-support/reply-body';

describe('when every step of order-fulfilment succeeds', () => {
  const retry = { maxAttempts: 5, initialBackoffMs: 50, maxBackoffMs: 1000, multiplier: 2, jitter: 0.5 };

  function runToEnd(replyTo: string | null = 'app.status') {
    const run = new ProcessRun(orderFulfilmentV1, replyTo);
    const all: Action[][] = [];
    all.push(run.apply({ type: 'claim' }).actions);
    const results = [{ reservationId: 'r-1' }, { chargeId: 'c-1' }, { shipmentId: 's-1' }];
    for (const result of results) {
      run.now += 100;
      all.push(run.reply(ok(result), run.request(), 'scheduler-2').actions);
    }
    return { run, all };
  }

  it('claims the process, announces Processing and dispatches the first step exactly', () => {
    const run = new ProcessRun();
    const { next, actions } = run.apply({ type: 'claim' });
    expect(next).toMatchObject({ state: 'Processing', mode: 'forward', attempt: 1, lockedBy: 'scheduler-1' });
    expect(next.completeBy).toEqual(new Date(T0 + 5000));
    expect(next.steps[0]).toMatchObject({ state: 'Running', dispatches: 1, startedAt: new Date(T0) });
    expect(actions).toEqual([
      {
        type: 'status',
        replyTo: 'app.status',
        event: { schemaVersion: 1, orderId: 'o-1', processId: 'p-1', status: 'Processing', at: T0 },
      },
      {
        type: 'dispatch',
        queue: 'agent.inventory.requests',
        request: {
          schemaVersion: 1,
          processId: 'p-1',
          orderId: 'o-1',
          step: 'reserve-inventory',
          stepIndex: 0,
          mode: 'forward',
          agent: 'inventory',
          operation: 'reserve',
          attempt: 1,
          idempotencyKey: 'p-1/reserve-inventory',
          completeBy: T0 + 5000,
          payload: { sku: 'sku-1' },
          results: {},
          retry,
          replyTo: 'scheduler.replies',
        },
      },
    ]);
  });

  it('dispatches each next step to its own agent queue as the previous one completes', () => {
    const { all } = runToEnd();
    const requests = all.flatMap((actions) => actions.flatMap((a) => (a.type === 'dispatch' ? [a] : [])));
    expect(requests.map((a) => a.queue)).toEqual([
      'agent.inventory.requests',
      'agent.payment.requests',
      'agent.shipping.requests',
    ]);
    expect(requests.map((a) => a.request)).toEqual([
      expect.objectContaining({ step: 'reserve-inventory', stepIndex: 0, operation: 'reserve', attempt: 1 }),
      expect.objectContaining({
        step: 'charge-payment',
        stepIndex: 1,
        agent: 'payment',
        operation: 'charge',
        attempt: 2,
        idempotencyKey: 'p-1/charge-payment',
        completeBy: T0 + 100 + 5000,
        retry,
        replyTo: 'scheduler.replies',
      }),
      expect.objectContaining({
        step: 'create-shipment',
        stepIndex: 2,
        agent: 'shipping',
        operation: 'create',
        attempt: 3,
        idempotencyKey: 'p-1/create-shipment',
        completeBy: T0 + 200 + 5000,
      }),
    ]);
  });

  it('tells the application Processing, StepCompleted for each step, then Processed', () => {
    const { all } = runToEnd();
    const events = statusEvents(all.flat());
    expect(events.map((e) => [e.status, e.step])).toEqual([
      ['Processing', undefined],
      ['StepCompleted', 'reserve-inventory'],
      ['StepCompleted', 'charge-payment'],
      ['StepCompleted', 'create-shipment'],
      ['Processed', undefined],
    ]);
    expect(all.flat().every((a) => a.type !== 'status' || a.replyTo === 'app.status')).toBe(true);
  });

  it('ends Processed, unlocked, with every step Completed, its result kept and a deleteTime', () => {
    const { run } = runToEnd();
    expect(run.doc).toMatchObject({
      state: 'Processed',
      mode: 'forward',
      lockedBy: null,
      completeBy: null,
      failureCount: 0,
      reason: null,
      revision: 4,
      attempt: 3,
    });
    expect(run.doc.deleteTime).toEqual(new Date(T0 + 300 + orderFulfilmentV1.retentionMs));
    expect(run.doc.steps.map((s) => [s.state, s.result])).toEqual([
      ['Completed', { reservationId: 'r-1' }],
      ['Completed', { chargeId: 'c-1' }],
      ['Completed', { shipmentId: 's-1' }],
    ]);
    expect(run.doc.steps[1]?.finishedAt).toEqual(new Date(T0 + 200));
  });

  it('lets the scheduler that applies a reply take the lock for the next step', () => {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    const { next } = run.reply(ok(), run.request(), 'scheduler-2');
    expect(next.lockedBy).toBe('scheduler-2');
  });

  it('sends no status events at all when the process has no replyTo', () => {
    const { run, all } = runToEnd(null);
    expect(run.doc.state).toBe('Processed');
    expect(all.flat().filter((a) => a.type === 'status')).toEqual([]);
    expect(all.flat().filter((a) => a.type === 'dispatch')).toHaveLength(3);
  });
});

describe('idempotency keys', () => {
  it('stay the same across a recovery of a step while the attempt moves on', () => {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    const first = run.request();
    run.expire();
    run.apply({ type: 'claim' });
    const second = run.request();
    expect(second.idempotencyKey).toBe(first.idempotencyKey);
    expect(second.idempotencyKey).toBe('p-1/reserve-inventory');
    expect(second.attempt).toBeGreaterThan(first.attempt);
    expect(run.doc.steps[0]?.idempotencyKey).toBe('p-1/reserve-inventory');
  });

  it('gain a /compensate suffix for the undo of a step, in the request and the step record', () => {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    run.reply(ok({ reservationId: 'r-1' }));
    run.reply({ outcome: 'error', errorKind: 'permanent', message: 'card declined' });
    const undo = run.request();
    expect(undo).toMatchObject({
      step: 'reserve-inventory',
      mode: 'compensate',
      operation: 'release',
      idempotencyKey: 'p-1/reserve-inventory/compensate',
      payload: { sku: 'sku-1', compensating: { reservationId: 'r-1' } },
    });
    expect(run.doc.steps[0]?.idempotencyKey).toBe('p-1/reserve-inventory/compensate');
    expect(run.doc.steps[1]?.idempotencyKey).toBe('p-1/charge-payment');
  });
});

describe('when a process is given a workflow it did not start with', () => {
  it('throws and names both workflows', () => {
    const doc = new ProcessRun().doc;
    const ctx = {
      workflow: orderFulfilmentManualV1,
      now: T0,
      who: 's',
      replyQueue: QueueNames.schedulerReplies,
    };
    expect(() => transition(doc, { type: 'claim' }, ctx)).toThrow(
      'Process p-1 runs order-fulfilment v1 but was given order-fulfilment-manual v1',
    );
  });
});
