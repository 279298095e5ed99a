import { orderFulfilmentManualV1, orderFulfilmentV1 } from './order-fulfilment';
import { alerts, statuses, statusEvents } from './test-support/action-filters';
import { ProcessRun, secondStepInFlight, type Applied } from './test-support/process-run';
import { ok } from './test-support/reply-body';
import type { WorkflowDefinition } from './workflow-definition';

/**
 * Runs the second step (charge-payment) of `workflow` into its failure threshold by letting it
 * expire three times; `last` is the transition that reached it.
 */
function secondStepToThreshold(workflow: WorkflowDefinition): { run: ProcessRun; last: Applied } {
  const run = secondStepInFlight(workflow);
  for (let i = 0; i < 2; i++) {
    run.expire();
    run.apply({ type: 'claim' });
  }
  return { run, last: run.expire() };
}

describe('when a step reaches the threshold under the error policy', () => {
  const toThreshold = () => secondStepToThreshold(orderFulfilmentManualV1);

  it('stops in Error with the count, without a lock or a deleteTime', () => {
    const { last } = toThreshold();
    expect(last.next).toMatchObject({
      state: 'Error',
      mode: 'forward',
      failureCount: 3,
      lockedBy: null,
      completeBy: null,
      deleteTime: null,
    });
    expect(last.next.steps[1]?.state).toBe('Running');
    expect(last.history.why).toBe('complete-by passed; threshold reached');
  });

  it('alerts an operator and tells the application the process Failed', () => {
    const { run, last } = toThreshold();
    const reason = 'charge-payment failed 3 times (last: complete-by passed)';
    expect(alerts(last.actions)).toEqual([
      {
        schemaVersion: 1,
        kind: 'ThresholdReached',
        processId: 'p-1',
        orderId: 'o-1',
        step: 'charge-payment',
        failureCount: 3,
        reason: `${reason}; process is in Error: resubmit or cancel it`,
        at: run.now,
      },
    ]);
    const events = statusEvents(last.actions);
    expect(events).toEqual([expect.objectContaining({ status: 'Failed', step: 'charge-payment', reason })]);
    expect(last.actions.filter((a) => a.type === 'dispatch' || a.type === 'wake')).toEqual([]);
  });

  it('stays in Error until an operator acts', () => {
    const { run } = toThreshold();
    run.now += 10 * 24 * 3600 * 1000;
    expect(run.try({ type: 'claim' })).toEqual({ applied: false, reason: 'not claimable: state is Error' });
    expect(run.try({ type: 'expire' }).applied).toBe(false);
  });
});

describe('when a step reaches the threshold under the wait policy', () => {
  const waiting: WorkflowDefinition = {
    ...orderFulfilmentV1,
    name: 'order-fulfilment-waiting',
    failureThreshold: 2,
    onThreshold: { policy: 'wait', waitMs: 60_000, maxWaits: 2 },
  };

  /** Claims, then lets the step expire until the threshold is reached once more. */
  function failToThreshold(run: ProcessRun): Applied {
    run.apply({ type: 'claim' });
    run.expire();
    run.now = run.doc.notBefore.getTime();
    run.apply({ type: 'claim' });
    return run.expire();
  }

  it('holds the process for waitMs with a fresh count, then retries the same step', () => {
    const run = new ProcessRun(waiting);
    const { next, actions } = failToThreshold(run);
    const until = run.now + 60_000;
    expect(next).toMatchObject({
      state: 'Pending',
      waits: 1,
      failureCount: 0,
      lockedBy: null,
      completeBy: null,
    });
    expect(next.notBefore).toEqual(new Date(until));
    expect(actions.filter((a) => a.type === 'wake')).toEqual([{ type: 'wake', atMs: until }]);
    expect(alerts(actions)).toEqual([
      expect.objectContaining({
        kind: 'ThresholdReached',
        step: 'reserve-inventory',
        failureCount: 2,
        reason:
          'reserve-inventory failed 2 times (last: complete-by passed); waiting 60000 ms before retrying (wait 1 of 2)',
      }),
    ]);
    expect(statuses(actions)).toEqual([]);
    run.now = until - 1;
    expect(run.try({ type: 'claim' }).applied).toBe(false);
    run.now = until;
    run.apply({ type: 'claim' });
    expect(run.request()).toMatchObject({
      step: 'reserve-inventory',
      idempotencyKey: 'p-1/reserve-inventory',
    });
  });

  it('counts the waits and stops in Error once maxWaits are used up', () => {
    const run = new ProcessRun(waiting);
    failToThreshold(run);
    run.now = run.doc.notBefore.getTime();
    expect(failToThreshold(run).next).toMatchObject({ state: 'Pending', waits: 2 });
    run.now = run.doc.notBefore.getTime();
    const { next, actions, history } = failToThreshold(run);
    expect(next).toMatchObject({ state: 'Error', waits: 2, failureCount: 2, deleteTime: null });
    expect(history.why).toBe('complete-by passed; threshold reached after 2 extended waits');
    expect(alerts(actions).map((a) => a.kind)).toEqual(['ThresholdReached']);
    expect(statuses(actions)).toEqual(['Failed']);
  });
});

describe('when a step reaches the threshold under the compensate policy', () => {
  const toThreshold = () => secondStepToThreshold(orderFulfilmentV1);

  it('hands the undo to a scheduler: Pending in compensate mode, nothing dispatched by the supervisor', () => {
    const { last } = toThreshold();
    expect(last.next).toMatchObject({
      state: 'Pending',
      mode: 'compensate',
      lockedBy: null,
      completeBy: null,
      failureCount: 0,
    });
    expect(last.actions.filter((a) => a.type === 'dispatch')).toEqual([]);
    expect(last.actions.filter((a) => a.type === 'wake')).toHaveLength(1);
  });

  it('undoes the in-doubt step first, under its compensation key', () => {
    const { run } = toThreshold();
    const last = run.apply({ type: 'claim' });
    expect(last.next).toMatchObject({
      state: 'Compensating',
      mode: 'compensate',
      currentStep: 1,
      failureCount: 0,
    });
    expect(last.next.steps.map((s) => s.state)).toEqual(['Completed', 'Compensating', 'NotStarted']);
    expect(run.request()).toMatchObject({
      step: 'charge-payment',
      stepIndex: 1,
      mode: 'compensate',
      operation: 'refund',
      idempotencyKey: 'p-1/charge-payment/compensate',
      attempt: last.next.attempt,
      completeBy: run.now + 5000,
      payload: { sku: 'sku-1', compensating: null },
    });
  });

  it('alerts with the count reached and tells the application the process Failed', () => {
    const { last } = toThreshold();
    expect(alerts(last.actions)).toEqual([
      expect.objectContaining({ kind: 'ThresholdReached', step: 'charge-payment', failureCount: 3 }),
    ]);
    expect(statuses(last.actions)).toEqual(['Failed']);
  });

  it('ends Compensated at once when nothing that ran can be undone', () => {
    const steps = orderFulfilmentV1.steps.map((s) => ({ ...s, compensation: null }));
    const run = new ProcessRun({ ...orderFulfilmentV1, name: 'irreversible', failureThreshold: 1, steps });
    run.apply({ type: 'claim' });
    expect(statuses(run.expire().actions)).toEqual(['Failed']);
    const { next, actions } = run.apply({ type: 'claim' });
    expect(next).toMatchObject({ state: 'Compensated', lockedBy: null, completeBy: null });
    expect(actions.filter((a) => a.type === 'dispatch')).toEqual([]);
    expect(statuses(actions)).toEqual(['Compensated']);
  });

  it('then undoes the completed steps in reverse order and ends Compensated', () => {
    const { run } = toThreshold();
    run.apply({ type: 'claim' });
    run.now += 100;
    run.reply(ok());
    expect(run.request()).toMatchObject({
      step: 'reserve-inventory',
      mode: 'compensate',
      operation: 'release',
      idempotencyKey: 'p-1/reserve-inventory/compensate',
      payload: { sku: 'sku-1', compensating: { reservationId: 'r-1' } },
    });
    run.now += 100;
    const { next, actions } = run.reply(ok());
    expect(next).toMatchObject({
      state: 'Compensated',
      mode: 'compensate',
      lockedBy: null,
      completeBy: null,
    });
    expect(next.deleteTime).toEqual(new Date(run.now + orderFulfilmentV1.retentionMs));
    expect(next.steps.map((s) => s.state)).toEqual(['Compensated', 'Compensated', 'NotStarted']);
    expect(statusEvents(actions)).toEqual([
      expect.objectContaining({ status: 'Compensated', reason: 'charge-payment: complete-by passed' }),
    ]);
  });
});
