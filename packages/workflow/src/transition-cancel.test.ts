import { orderFulfilmentManualV1, orderFulfilmentV1 } from './order-fulfilment';
import { statusEvents, statuses } from './test-support/action-filters';
import { expectIgnored } from './test-support/expect-ignored';
import { ProcessRun, secondStepInFlight } from './test-support/process-run';
import { answer, ok, refused, transient } from './test-support/reply-body';

describe('when an operator cancels a process before any step ran', () => {
  it('marks it canceled and releases it in compensate mode', () => {
    const run = new ProcessRun();
    run.now += 10;
    const { next, actions, history } = run.apply(
      { type: 'cancel', by: 'op', reason: 'customer asked' },
      'dashboard-1',
    );
    expect(next).toMatchObject({
      state: 'Pending',
      mode: 'compensate',
      canceled: true,
      attempt: 1,
      failureCount: 0,
    });
    expect(next.reason).toBe('canceled by op: customer asked');
    expect(actions).toEqual([{ type: 'wake', atMs: run.now }]);
    expect(history).toMatchObject({ who: 'dashboard-1', why: 'canceled by op: customer asked' });
  });

  it('ends Canceled on the next claim without dispatching anything', () => {
    const run = new ProcessRun();
    run.apply({ type: 'cancel', by: 'op' });
    const { next, actions } = run.apply({ type: 'claim' });
    expect(next).toMatchObject({
      state: 'Canceled',
      lockedBy: null,
      completeBy: null,
      reason: 'canceled by op',
    });
    expect(next.deleteTime).toEqual(new Date(run.now + orderFulfilmentV1.retentionMs));
    expect(next.steps.map((s) => s.state)).toEqual(['NotStarted', 'NotStarted', 'NotStarted']);
    expect(actions.filter((a) => a.type === 'dispatch')).toEqual([]);
    const events = statusEvents(actions);
    expect(events).toEqual([expect.objectContaining({ status: 'Canceled', reason: 'canceled by op' })]);
  });

  it("makes a parked process claimable at the parked attempt's complete-by, not after the parking delay", () => {
    const run = secondStepInFlight();
    const parked = run.request();
    run.reply({ outcome: 'parked', retryAfterMs: 600_000, reason: 'circuit open' });
    const { next } = run.apply({ type: 'cancel', by: 'op' });
    // A redelivery of the parked request may still call until then (its reply's send may have failed).
    expect(next.notBefore).toEqual(new Date(parked.completeBy));
    expect(parked.completeBy - run.now).toBeLessThan(600_000);
    run.now = parked.completeBy;
    expect(run.try({ type: 'claim' }).applied).toBe(true);
  });
});

describe('when an operator cancels while a step is in flight', () => {
  it('fences off the in-flight reply, undoes that step and the completed one, and ends Canceled', () => {
    const run = secondStepInFlight();
    const inFlight = run.request();
    run.apply({ type: 'cancel', by: 'op', reason: 'fraud' });
    const lateOk = { type: 'reply', reply: answer(inFlight, ok(), run.now) } as const;
    expect(run.try(lateOk)).toEqual({
      applied: false,
      reason: 'stale reply from payment-1: process is Pending, not Processing',
    });
    run.now = inFlight.completeBy;
    run.apply({ type: 'claim' });
    expect(run.try(lateOk).applied).toBe(false);
    expect(run.request()).toMatchObject({
      step: 'charge-payment',
      operation: 'refund',
      idempotencyKey: 'p-1/charge-payment/compensate',
    });
    run.reply(ok());
    expect(run.request()).toMatchObject({ step: 'reserve-inventory', operation: 'release' });
    const { next, actions } = run.reply(ok());
    expect(next).toMatchObject({ state: 'Canceled', reason: 'canceled by op: fraud' });
    expect(next.steps.map((s) => s.state)).toEqual(['Compensated', 'Compensated', 'NotStarted']);
    expect(statuses(actions)).toEqual(['Canceled']);
  });
});

describe('when an operator cancels a process in Error', () => {
  it('undoes the in-doubt and completed steps of a forward process and ends Canceled', () => {
    const run = secondStepInFlight(orderFulfilmentManualV1);
    for (let i = 0; i < 3; i++) {
      if (i > 0) run.apply({ type: 'claim' });
      run.expire();
    }
    expect(run.doc.state).toBe('Error');
    run.apply({ type: 'cancel', by: 'op' });
    expect(run.doc.deleteTime).toBeNull();
    run.apply({ type: 'claim' });
    expect(run.request()).toMatchObject({ step: 'charge-payment', mode: 'compensate' });
    run.reply(ok());
    expect(run.reply(ok()).next.state).toBe('Canceled');
  });

  it('refuses when the Error came from a failed compensation, and points to resubmit', () => {
    const run = secondStepInFlight();
    run.reply(refused('card declined'));
    run.reply(refused('reservation unknown'));
    expect(run.doc.state).toBe('Error');
    expectIgnored(
      run,
      { type: 'cancel', by: 'op' },
      'process is already being undone (Error); resubmit it if compensation failed',
    );
  });
});

describe('when an operator cancels a process that cannot be canceled', () => {
  it('refuses to cancel a finished process', () => {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    run.reply(ok());
    run.reply(ok());
    run.reply(ok());
    expectIgnored(
      run,
      { type: 'cancel', by: 'op' },
      'process is Processed; only unfinished processes can be canceled',
    );
  });

  it('refuses to cancel a process that is already compensating', () => {
    const run = secondStepInFlight();
    run.reply(refused('card declined'));
    const refusal = 'process is already being undone (Compensating); resubmit it if compensation failed';
    expectIgnored(run, { type: 'cancel', by: 'op' }, refusal);
  });

  it('refuses to cancel a compensated process without suggesting a resubmit', () => {
    const run = secondStepInFlight();
    run.reply(refused('card declined'));
    run.reply(ok());
    expect(run.doc.state).toBe('Compensated');
    expectIgnored(
      run,
      { type: 'cancel', by: 'op' },
      'process is Compensated; only unfinished processes can be canceled',
    );
  });
});

describe('when an operator cancels while the forward call may still reach the remote', () => {
  it('holds the undo until the in-flight attempt\'s complete-by, so it cannot overtake the forward call', () => {
    const run = secondStepInFlight();
    const inFlight = run.request();
    run.now += 100;
    const { next, actions, history } = run.apply({ type: 'cancel', by: 'op' });
    expect(next.notBefore).toEqual(new Date(inFlight.completeBy));
    expect(actions).toEqual([{ type: 'wake', atMs: inFlight.completeBy }]);
    expect(history.why).toBe(`canceled by op; undo held ${inFlight.completeBy - run.now} ms until the in-flight attempt's complete-by`);
    run.now = inFlight.completeBy - 1;
    expect(run.try({ type: 'claim' })).toMatchObject({ applied: false });
    run.now = inFlight.completeBy;
    expect(run.try({ type: 'claim' }).applied).toBe(true);
  });

  // Found by the simulation (seed 5704, 10 orders): the send of a dispatch failed but the message
  // had left; the process went back to Pending, a cancel then undid the step at once, and the
  // forward call landed after its undo at a remote that ignores `compensates`.
  it('holds the undo until the complete-by of a dispatch whose send failed, as it may have left all the same', () => {
    const run = secondStepInFlight();
    const lost = run.request();
    run.apply({ type: 'undelivered', attempt: lost.attempt, error: 'answer lost' });
    run.now += 100;
    const { next, history } = run.apply({ type: 'cancel', by: 'op' });
    expect(next.notBefore).toEqual(new Date(lost.completeBy));
    expect(history.why).toContain(`undo held ${lost.completeBy - run.now} ms`);
    run.now = lost.completeBy - 1;
    expect(run.try({ type: 'claim' })).toMatchObject({ applied: false });
  });

  it.each([
    ['was parked (its breaker open)', { outcome: 'parked', retryAfterMs: 500, reason: 'circuit open' } as const],
    ['gave up on transient errors', transient],
  ])("holds the undo after a reply that %s until that attempt's complete-by: a redelivered request may still call", (_what, body) => {
    const run = secondStepInFlight();
    const answered = run.request();
    run.reply(body);
    expect(run.doc).toMatchObject({ state: 'Pending', mode: 'forward' });
    expect(run.doc.inFlightUntil).toEqual(new Date(answered.completeBy));
    run.now += 100;
    const { next, history } = run.apply({ type: 'cancel', by: 'op' });
    expect(next.notBefore).toEqual(new Date(answered.completeBy));
    expect(history.why).toContain(`undo held ${answered.completeBy - run.now} ms`);
    run.now = answered.completeBy - 1;
    expect(run.try({ type: 'claim' })).toMatchObject({ applied: false });
  });

  it('holds a compensation that starts for another reason until that complete-by too', () => {
    const run = secondStepInFlight();
    const lost = run.request();
    run.apply({ type: 'undelivered', attempt: lost.attempt, error: 'answer lost' });
    run.now = run.doc.notBefore.getTime();
    run.apply({ type: 'claim' });
    run.reply(refused('card declined'));
    expect(run.doc).toMatchObject({ state: 'Pending', mode: 'compensate' });
    expect(run.doc.notBefore).toEqual(new Date(lost.completeBy));
  });

  it('names the forward call, its result and its latest complete-by on every undo it dispatches', () => {
    const run = secondStepInFlight();
    const charge = run.request();
    run.reply(ok({ chargeId: 'c-1' }));
    const shipment = run.request();
    run.apply({ type: 'cancel', by: 'op' });
    run.now = run.doc.notBefore.getTime();
    run.apply({ type: 'claim' });
    expect(run.request()).toMatchObject({
      operation: 'cancel',
      idempotencyKey: 'p-1/create-shipment/compensate',
      compensates: { idempotencyKey: 'p-1/create-shipment', result: null, completeBy: shipment.completeBy },
    });
    run.reply(ok());
    expect(run.request()).toMatchObject({
      operation: 'refund',
      compensates: { idempotencyKey: 'p-1/charge-payment', result: { chargeId: 'c-1' }, completeBy: charge.completeBy },
    });
  });
});

describe('when the same operator command is delivered twice', () => {
  it('answers the repeat with what the first did instead of refusing it', () => {
    const run = secondStepInFlight();
    const first = run.apply({ type: 'cancel', by: 'op', commandId: 'cmd-1' });
    expect(run.try({ type: 'cancel', by: 'op', commandId: 'cmd-1' })).toEqual({
      applied: false,
      reason: `command cmd-1 was applied before: ${first.history.why}`,
      alreadyApplied: first.history.why,
    });
    // A different command is judged on its own.
    expect(run.try({ type: 'cancel', by: 'op', commandId: 'cmd-2' })).toMatchObject({
      applied: false,
      reason: 'process is already being undone (Pending); resubmit it if compensation failed',
    });
  });
});
