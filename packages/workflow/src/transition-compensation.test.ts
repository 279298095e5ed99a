import { orderFulfilmentV1 } from './order-fulfilment';
import { alerts, statuses, statusEvents } from './test-support/action-filters';
import { ProcessRun, secondStepInFlight } from './test-support/process-run';
import { ok, refused } from './test-support/reply-body';
import type { WorkflowDefinition } from './workflow-definition';

describe('when a step is refused permanently', () => {
  it('marks it Failed, tells the application and undoes only the steps before it', () => {
    const run = secondStepInFlight();
    run.now += 50;
    const { next, actions } = run.reply(refused('card declined'));
    expect(next).toMatchObject({
      state: 'Compensating',
      mode: 'compensate',
      currentStep: 0,
      failureCount: 0,
    });
    expect(next.reason).toBe('charge-payment: card declined');
    expect(next.steps[1]).toMatchObject({
      state: 'Failed',
      error: 'card declined',
      finishedAt: new Date(run.now),
    });
    expect(next.steps[1]?.idempotencyKey).toBe('p-1/charge-payment');
    const events = statusEvents(actions);
    expect(events).toEqual([
      expect.objectContaining({ status: 'Failed', step: 'charge-payment', reason: 'card declined' }),
    ]);
    expect(run.request()).toMatchObject({
      step: 'reserve-inventory',
      operation: 'release',
      mode: 'compensate',
    });
  });

  it('ends Compensated, giving the refusal as the reason, once the earlier steps are undone', () => {
    const run = secondStepInFlight();
    run.reply(refused('card declined'));
    const { next, actions } = run.reply(ok());
    expect(next.state).toBe('Compensated');
    expect(next.steps.map((s) => s.state)).toEqual(['Compensated', 'Failed', 'NotStarted']);
    expect(next.deleteTime).toEqual(new Date(run.now + orderFulfilmentV1.retentionMs));
    const events = statusEvents(actions);
    expect(events).toEqual([
      expect.objectContaining({ status: 'Compensated', reason: 'charge-payment: card declined' }),
    ]);
  });

  it('ends Compensated at once when nothing before it needs undoing', () => {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    const { next, actions } = run.reply(refused('out of stock'));
    expect(next).toMatchObject({ state: 'Compensated', lockedBy: null, completeBy: null });
    expect(actions.filter((a) => a.type === 'dispatch')).toEqual([]);
    expect(statuses(actions)).toEqual(['Failed', 'Compensated']);
  });

  it('skips completed steps that have nothing to undo', () => {
    const steps = orderFulfilmentV1.steps.map((s, i) => (i === 0 ? { ...s, compensation: null } : s));
    const run = new ProcessRun({ ...orderFulfilmentV1, name: 'partly-undoable', steps });
    run.apply({ type: 'claim' });
    run.reply(ok());
    run.reply(ok({ chargeId: 'c-1' }));
    run.reply(refused('address invalid'));
    expect(run.request()).toMatchObject({ step: 'charge-payment', operation: 'refund' });
    const { next } = run.reply(ok());
    expect(next.state).toBe('Compensated');
    expect(next.steps.map((s) => s.state)).toEqual(['Completed', 'Compensated', 'Failed']);
  });
});

describe('when a step is refused permanently and the workflow stops on refusals', () => {
  const strict: WorkflowDefinition = { ...orderFulfilmentV1, name: 'strict', onPermanentFailure: 'error' };

  it('stops in Error, alerts an operator and undoes nothing', () => {
    const run = secondStepInFlight(strict);
    const { next, actions } = run.reply(refused('card declined'));
    expect(next).toMatchObject({
      state: 'Error',
      mode: 'forward',
      lockedBy: null,
      completeBy: null,
      deleteTime: null,
    });
    expect(next.steps.map((s) => s.state)).toEqual(['Completed', 'Failed', 'NotStarted']);
    expect(alerts(actions)).toEqual([
      expect.objectContaining({
        kind: 'ProcessError',
        step: 'charge-payment',
        reason: 'charge-payment refused: card declined; resubmit or cancel the process',
      }),
    ]);
    expect(statuses(actions)).toEqual(['Failed']);
    expect(actions.filter((a) => a.type === 'dispatch')).toEqual([]);
  });
});

describe('when a compensation is refused permanently', () => {
  function refusedUndo(): ProcessRun {
    const run = secondStepInFlight();
    run.reply(refused('card declined'));
    run.reply(refused('reservation unknown'));
    return run;
  }

  it('stops in Error and alerts that compensation failed', () => {
    const run = refusedUndo();
    const { doc, actions } = run;
    expect(doc).toMatchObject({
      state: 'Error',
      mode: 'compensate',
      lockedBy: null,
      completeBy: null,
      deleteTime: null,
    });
    expect(doc.steps[0]).toMatchObject({ state: 'Compensating', error: 'reservation unknown' });
    expect(alerts(actions)).toEqual([
      expect.objectContaining({
        kind: 'CompensationFailed',
        step: 'reserve-inventory',
        reason: 'reserve-inventory compensation refused: reservation unknown; an operator must resolve it',
      }),
    ]);
    const events = statusEvents(actions);
    expect(events).toEqual([
      expect.objectContaining({ status: 'Failed', reason: 'compensation refused: reservation unknown' }),
    ]);
  });

  it('retries the same compensation after a resubmit and finishes undoing', () => {
    const run = refusedUndo();
    const before = run.doc;
    run.now += 60_000;
    const resubmitted = run.apply({ type: 'resubmit', by: 'op' }, 'dashboard-1');
    expect(resubmitted.next).toMatchObject({
      state: 'Pending',
      mode: 'compensate',
      failureCount: 0,
      reason: 'resubmitted by op',
    });
    expect(resubmitted.actions).toEqual([{ type: 'wake', atMs: run.now }]);
    run.apply({ type: 'claim' });
    expect(run.request()).toMatchObject({
      step: 'reserve-inventory',
      mode: 'compensate',
      operation: 'release',
      idempotencyKey: 'p-1/reserve-inventory/compensate',
      attempt: before.attempt + 2,
    });
    expect(run.doc.steps[0]?.dispatches).toBe(2);
    expect(run.reply(ok()).next.state).toBe('Compensated');
  });
});
