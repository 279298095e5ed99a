import { alerts, statuses } from './test-support/action-filters';
import { expectIgnored } from './test-support/expect-ignored';
import { groupFulfilment } from './test-support/group-workflow';
import { ProcessRun } from './test-support/process-run';
import { answer, ok, transient } from './test-support/reply-body';
import type { WorkflowDefinition } from './workflow-definition';

/** A run whose group has just started: reserve-inventory completed, both members in flight. */
function groupStarted(workflow = groupFulfilment): ProcessRun {
  const run = new ProcessRun(workflow);
  run.apply({ type: 'claim' });
  run.reply(ok({ reservationId: 'r-1' }));
  return run;
}

const states = (run: ProcessRun): string[] => run.doc.steps.map((s) => s.state);

describe('when a parallel group starts', () => {
  it('dispatches every member in one transition, each with its own fence, complete-by and key', () => {
    const run = groupStarted();
    const [charge, ship] = run.requests();
    expect(run.requests().map((r) => [r.step, r.stepIndex, r.attempt, r.idempotencyKey, r.completeBy - run.now])).toEqual([
      ['charge-payment', 1, 2, 'p-1/charge-payment', 4000],
      ['create-shipment', 2, 3, 'p-1/create-shipment', 6000],
    ]);
    expect(run.doc.steps.slice(1, 3).map((s) => [s.state, s.attempt, s.completeBy?.getTime()])).toEqual([
      ['Running', charge?.attempt, charge?.completeBy],
      ['Running', ship?.attempt, ship?.completeBy],
    ]);
    // The supervisor sweeps by the earliest complete-by of the members in flight.
    expect(run.doc).toMatchObject({ state: 'Processing', attempt: 3, completeBy: new Date(run.now + 4000) });
  });

  it('gives each member the results from before the group, never a sibling result', () => {
    const run = groupStarted();
    const ship = run.requestFor('create-shipment');
    run.reply(ok({ chargeId: 'c-1' }), run.requestFor('charge-payment'));
    expect(ship.results).toEqual({ 'reserve-inventory': { reservationId: 'r-1' } });
    // Sent again after the sibling completed, the member still sees only what came before the group.
    run.now = ship.completeBy;
    run.apply({ type: 'expire' }, 'supervisor-1');
    run.apply({ type: 'claim' });
    expect(run.request().results).toEqual({ 'reserve-inventory': { reservationId: 'r-1' } });
  });

  it('completes when every member has, and the next entry sees every member result by name', () => {
    const run = groupStarted();
    const [charge, ship] = run.requests();
    const first = run.reply(ok({ shipmentId: 's-1' }), ship);
    expect(first.next).toMatchObject({ state: 'Processing', completeBy: new Date(charge!.completeBy) });
    expect(first.actions.filter((a) => a.type === 'dispatch')).toEqual([]);
    expect(statuses(first.actions)).toEqual(['StepCompleted']);
    const second = run.reply(ok({ chargeId: 'c-1' }), charge);
    expect(states(run)).toEqual(['Completed', 'Completed', 'Completed', 'Running']);
    expect(run.request()).toMatchObject({
      step: 'send-mail',
      results: { 'reserve-inventory': { reservationId: 'r-1' }, 'charge-payment': { chargeId: 'c-1' }, 'create-shipment': { shipmentId: 's-1' } },
    });
    expect(second.history).toMatchObject({ step: 'send-mail' });
    expect(second.history.why).toMatch(/^ok from payment-1 for charge-payment#2; group charge-and-ship done; dispatching send-mail$/);
  });

  it('names the group in the history of its transitions and the member in the reason', () => {
    const run = groupStarted();
    const { history } = run.reply(ok(), run.requestFor('create-shipment'));
    expect(history).toMatchObject({ step: 'charge-and-ship', why: 'ok from shipping-1 for create-shipment#3' });
  });
});

describe("a member's fence", () => {
  it("keeps a member's reply current while a sibling is retried and the process is Pending", () => {
    const run = groupStarted();
    const [charge, ship] = run.requests();
    run.reply(transient, charge);
    expect(run.doc).toMatchObject({ state: 'Pending', failureCount: 1 });
    // The shipment's reply arrives while its sibling waits to be sent again: it still counts.
    const { next } = run.reply(ok({ shipmentId: 's-1' }), ship);
    expect(next.steps[2]).toMatchObject({ state: 'Completed', result: { shipmentId: 's-1' } });
    run.apply({ type: 'claim' });
    expect(run.requests().map((r) => r.step)).toEqual(['charge-payment']);
  });

  it("refuses a reply of a member's earlier attempt once that member was sent again", () => {
    const run = groupStarted();
    const charge = run.requestFor('charge-payment');
    run.reply(transient, charge);
    run.apply({ type: 'claim' });
    const again = run.request();
    expect(again.attempt).toBeGreaterThan(charge.attempt);
    expectIgnored(
      run,
      { type: 'reply', reply: answer(charge, ok(), run.now) },
      `stale reply from payment-1: attempt ${charge.attempt} is not charge-payment's current one (${again.attempt})`,
    );
  });

  it('refuses the reply of a member that waits to be sent again (its attempt was recovered)', () => {
    const run = groupStarted();
    const charge = run.requestFor('charge-payment');
    run.reply(transient, charge);
    expectIgnored(run, { type: 'reply', reply: answer(charge, ok(), run.now) }, 'stale reply from payment-1: charge-payment is waiting to be sent again');
  });
});

describe('recovering one member', () => {
  it('counts a failure on that member only, the process mirroring the highest count', () => {
    const run = groupStarted();
    run.reply(transient, run.requestFor('charge-payment'));
    expect(run.doc.steps.slice(1, 3).map((s) => s.failureCount)).toEqual([1, 0]);
    expect(run.doc.failureCount).toBe(1);
    expect(run.doc.notBefore).toEqual(new Date(run.now));
  });

  it('lets the supervisor expire the member past its complete-by and the claim re-send only that one', () => {
    const run = groupStarted();
    const [charge, ship] = run.requests();
    run.now = charge!.completeBy;
    const expired = run.apply({ type: 'expire' }, 'supervisor-1');
    expect(expired.next).toMatchObject({ state: 'Pending', failureCount: 1, completeBy: null, lockedBy: null });
    expect(expired.history.why).toBe('complete-by passed; charge-payment: complete-by passed; failure 1 of 3, retrying it; waiting to send charge-payment');
    run.apply({ type: 'claim' });
    expect(run.requests().map((r) => r.step)).toEqual(['charge-payment']);
    // The sibling was never sent again, and its first reply still completes it.
    expect(run.doc.steps[2]).toMatchObject({ dispatches: 1, attempt: ship!.attempt });
    run.reply(ok(), ship);
    expect(run.doc.steps[2]?.state).toBe('Completed');
  });

  it('makes the claim treat a member in flight past its complete-by as expired', () => {
    const run = groupStarted();
    const [charge, ship] = run.requests();
    run.reply({ outcome: 'parked', retryAfterMs: 10_000, reason: 'circuit open' }, charge);
    // Pending until the earlier of: the parked member due, the sibling in flight past its complete-by.
    expect(run.doc.notBefore).toEqual(new Date(ship!.completeBy));
    run.now = ship!.completeBy;
    const { next, history } = run.apply({ type: 'claim' });
    expect(next.steps[2]).toMatchObject({ failureCount: 1, state: 'Running', dispatches: 2, completeBy: new Date(run.now + 6000) });
    expect(history.why).toMatch(/create-shipment: complete-by passed; failure 1 of 3, retrying it; dispatching create-shipment/);
    expect(run.requests().map((r) => r.step)).toEqual(['create-shipment']);
    // The parked member is sent at its own time, not before.
    expect(next.notBefore).toEqual(new Date(charge!.completeBy - 4000 + 10_000));
  });

  it('sends again only the member whose dispatch could not be sent', () => {
    const run = groupStarted();
    const [, ship] = run.requests();
    const { next } = run.apply({ type: 'undelivered', attempt: ship!.attempt, error: 'redis down' });
    expect(next).toMatchObject({ state: 'Pending', failureCount: 0 });
    expect(next.inFlightUntil).toEqual(new Date(ship!.completeBy));
    run.now += 1000;
    run.apply({ type: 'claim' });
    expect(run.requests().map((r) => r.step)).toEqual(['create-shipment']);
  });

  it('ignores an unsent report for a member attempt no longer in flight', () => {
    const run = groupStarted();
    const [charge] = run.requests();
    run.reply(ok(), charge);
    expectIgnored(
      run,
      { type: 'undelivered', attempt: charge!.attempt, error: 'redis down' },
      `attempt ${charge!.attempt} is not a member of the current group in flight (state Processing)`,
    );
  });

  it("applies a 'wait' threshold policy to the member alone: it waits with a fresh count while its sibling goes on", () => {
    const waiting: WorkflowDefinition = { ...groupFulfilment, failureThreshold: 1, onThreshold: { policy: 'wait', waitMs: 60_000, maxWaits: 1 } };
    const run = groupStarted(waiting);
    const [charge, ship] = run.requests();
    const { next, actions } = run.reply(transient, charge);
    expect(alerts(actions)).toEqual([expect.objectContaining({ kind: 'ThresholdReached', step: 'charge-payment', failureCount: 1 })]);
    expect(next.steps[1]).toMatchObject({ state: 'Running', failureCount: 0, notBefore: new Date(run.now + 60_000) });
    expect(next).toMatchObject({ state: 'Pending', waits: 1, failureCount: 0, notBefore: new Date(ship!.completeBy) });
    run.reply(ok(), ship);
    expect(run.doc.notBefore).toEqual(new Date(run.now + 60_000));
    run.now += 60_000;
    run.apply({ type: 'claim' });
    // The second time, no wait is left: the process stops in Error for an operator.
    const last = run.reply(transient);
    expect(last.next.state).toBe('Error');
    expect(alerts(last.actions)).toEqual([expect.objectContaining({ kind: 'ThresholdReached', reason: expect.stringContaining('process is in Error') })]);
  });

  it('compensates the group and the steps before it once a member reaches the threshold', () => {
    const run = groupStarted();
    const ship = run.requestFor('create-shipment');
    run.reply(ok({ chargeId: 'c-1' }), run.requestFor('charge-payment'));
    // create-shipment keeps timing out; its earlier attempts may still land until their complete-by.
    for (let i = 0; i < 3; i++) {
      run.now = run.doc.completeBy!.getTime();
      run.apply({ type: 'expire' }, 'supervisor-1');
      if (i < 2) run.apply({ type: 'claim' });
    }
    expect(run.doc).toMatchObject({ state: 'Pending', mode: 'compensate', failureCount: 0 });
    expect(statuses(run.actions)).toEqual(['Failed']);
    expect(alerts(run.actions)).toEqual([expect.objectContaining({ kind: 'ThresholdReached', step: 'create-shipment', failureCount: 3 })]);
    run.apply({ type: 'claim' });
    // Undone from the group's last member backward, one at a time: the member in doubt first.
    expect(run.request()).toMatchObject({ step: 'create-shipment', mode: 'compensate', operation: 'cancel' });
    expect(ship.step).toBe('create-shipment');
    run.reply(ok());
    expect(run.request()).toMatchObject({ step: 'charge-payment', mode: 'compensate', operation: 'refund' });
    run.reply(ok());
    expect(run.request()).toMatchObject({ step: 'reserve-inventory', mode: 'compensate' });
    run.reply(ok());
    expect(run.doc.state).toBe('Compensated');
    expect(states(run)).toEqual(['Compensated', 'Compensated', 'Compensated', 'NotStarted']);
  });
});
