import type { AgentRequest, ProcessDocument } from '@sas/contracts';
import { orderFulfilmentManualV1 } from './order-fulfilment';
import { alerts, statuses } from './test-support/action-filters';
import { ProcessRun, T0, secondStepInFlight, type Applied } from './test-support/process-run';
import { answer, ok, refused, transient } from './test-support/reply-body';

/**
 * Asserts a transition released the process to Pending, unlocked and holding nothing, with `fields`,
 * claimable from `atMs` and with a wake-up for then as its only action. Returns the transition.
 */
function expectReleased(result: Applied, atMs: number, fields: Partial<ProcessDocument>): Applied {
  expect(result.next).toMatchObject({ state: 'Pending', lockedBy: null, completeBy: null, ...fields });
  expect(result.next.notBefore).toEqual(new Date(atMs));
  expect(result.actions).toEqual([{ type: 'wake', atMs }]);
  return result;
}

describe('when a held step passes its complete-by time below the threshold', () => {
  it('releases the process to Pending with a new attempt, one more failure and a wake-up', () => {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    const released = run.expire();
    expectReleased(released, T0 + 5000, { mode: 'forward', attempt: 2, failureCount: 1 });
    const { next, history } = released;
    expect(next.reason).toBe('reserve-inventory: complete-by passed');
    expect(next.steps[0]?.state).toBe('Running');
    expect(history).toMatchObject({ who: 'supervisor-1', from: 'Processing', to: 'Pending' });
    expect(history.why).toBe('complete-by passed; failure 1 of 3, retrying');
  });

  it('lets the next claim re-dispatch the same step with the same key and a new attempt', () => {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    const first = run.request();
    run.expire();
    const { actions } = run.apply({ type: 'claim' }, 'scheduler-2');
    const again = run.request();
    expect(again).toEqual({ ...first, attempt: 3, completeBy: T0 + 5000 + 5000 });
    expect(statuses(actions)).toEqual([]);
    expect(run.doc).toMatchObject({ state: 'Processing', lockedBy: 'scheduler-2', failureCount: 1 });
    expect(run.doc.steps[0]).toMatchObject({ dispatches: 2, startedAt: new Date(T0) });
  });
});

describe('when an agent gives up on a step with a transient error', () => {
  it('counts a failure exactly as an expiry does', () => {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    run.now += 700;
    const { next } = expectReleased(run.reply(transient), T0 + 700, { attempt: 2, failureCount: 1 });
    expect(next.reason).toBe('reserve-inventory: agent gave up: gateway timeout');
    expect(next.steps[0]).toMatchObject({ state: 'Running', error: null });
  });

  it('reaches the threshold together with expiries', () => {
    const run = new ProcessRun(orderFulfilmentManualV1);
    run.apply({ type: 'claim' });
    run.expire();
    run.apply({ type: 'claim' });
    run.reply(transient);
    run.apply({ type: 'claim' });
    const { next } = run.expire();
    expect(next).toMatchObject({ state: 'Error', failureCount: 3 });
  });
});

describe('when a step succeeds after failures', () => {
  it('starts the next step with a clean failure count', () => {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    run.expire();
    run.apply({ type: 'claim' });
    run.expire();
    run.apply({ type: 'claim' });
    expect(run.doc.failureCount).toBe(2);
    run.reply(ok());
    expect(run.doc.failureCount).toBe(0);
    run.expire();
    run.apply({ type: 'claim' });
    const { next } = run.expire();
    expect(next).toMatchObject({ state: 'Pending', mode: 'forward', failureCount: 2 });
  });
});

describe('when an agent parks a step because its circuit is open', () => {
  function parked(): { run: ProcessRun; held: AgentRequest; result: Applied } {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    run.expire();
    run.apply({ type: 'claim' });
    const held = run.request();
    run.now += 200;
    return {
      run,
      held,
      result: run.reply({ outcome: 'parked', retryAfterMs: 30_000, reason: 'circuit open' }),
    };
  }

  it('holds the process until retryAfterMs without counting a failure', () => {
    const { run, held, result } = parked();
    expectReleased(result, run.now + 30_000, { failureCount: 1, attempt: held.attempt + 1 });
    expect(result.next.reason).toBe('reserve-inventory: circuit open');
  });

  it('treats a later reply of the parked attempt as stale', () => {
    const { run, held } = parked();
    run.now += 30_000;
    run.apply({ type: 'claim' });
    const late = answer(held, ok(), run.now);
    expect(run.try({ type: 'reply', reply: late })).toEqual({
      applied: false,
      reason: `stale reply from inventory-1: attempt ${held.attempt} is not current (${held.attempt + 2})`,
    });
    expect(run.request()).toMatchObject({ idempotencyKey: held.idempotencyKey, attempt: held.attempt + 2 });
  });

  it('parks a compensation the same way and resumes it under the same key', () => {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    run.reply(ok());
    run.reply({ outcome: 'error', errorKind: 'permanent', message: 'card declined' });
    const undo = run.request();
    run.reply({ outcome: 'parked', retryAfterMs: 1000, reason: 'circuit open' });
    expect(run.doc).toMatchObject({ state: 'Pending', mode: 'compensate' });
    run.now += 1000;
    run.apply({ type: 'claim' });
    expect(run.request()).toEqual({ ...undo, attempt: undo.attempt + 2, completeBy: run.now + 5000 });
  });
});

describe('when a step that had already timed out is then refused permanently', () => {
  it('gives the undo a failure count of its own, so its first timeout is retried', () => {
    const run = secondStepInFlight();
    run.expire();
    run.apply({ type: 'claim' });
    run.expire();
    run.apply({ type: 'claim' });
    run.reply(refused('card declined'));
    expect(run.doc).toMatchObject({ state: 'Compensating', failureCount: 0 });
    expect(run.expire().next).toMatchObject({ state: 'Pending', mode: 'compensate', failureCount: 1 });
  });
});

describe('when a compensation keeps timing out', () => {
  it('retries it under the same key below the threshold', () => {
    const run = secondStepInFlight();
    run.reply(refused('card declined'));
    const undo = run.request();
    const { next } = run.expire();
    expect(next).toMatchObject({ state: 'Pending', mode: 'compensate', failureCount: 1 });
    run.apply({ type: 'claim' });
    expect(run.request()).toMatchObject({ idempotencyKey: undo.idempotencyKey, attempt: undo.attempt + 2 });
  });

  it('stops in Error with a CompensationFailed alert at the threshold', () => {
    const run = secondStepInFlight();
    run.reply(refused('card declined'));
    run.expire();
    run.apply({ type: 'claim' });
    run.expire();
    run.apply({ type: 'claim' });
    const { next, actions, history } = run.expire();
    expect(next).toMatchObject({
      state: 'Error',
      mode: 'compensate',
      failureCount: 3,
      lockedBy: null,
      deleteTime: null,
    });
    expect(alerts(actions)).toEqual([
      expect.objectContaining({ kind: 'CompensationFailed', step: 'reserve-inventory', failureCount: 3 }),
    ]);
    expect(statuses(actions)).toEqual(['Failed']);
    expect(history.why).toBe('complete-by passed; compensation threshold reached');
  });
});
