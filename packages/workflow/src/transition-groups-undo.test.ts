import { alerts, statuses } from './test-support/action-filters';
import { expectIgnored } from './test-support/expect-ignored';
import { groupFulfilment, groupFulfilmentManual } from './test-support/group-workflow';
import { ProcessRun } from './test-support/process-run';
import { answer, ok, okResultRefused, refused } from './test-support/reply-body';

/** A run whose group has just started: reserve-inventory completed, both members in flight. */
function groupStarted(workflow = groupFulfilment): ProcessRun {
  const run = new ProcessRun(workflow);
  run.apply({ type: 'claim' });
  run.reply(ok({ reservationId: 'r-1' }));
  return run;
}

const states = (run: ProcessRun): string[] => run.doc.steps.map((s) => s.state);

describe('when a member is refused', () => {
  it('holds every undo until the sibling in flight passes its complete-by, then undoes it and the earlier steps', () => {
    const run = groupStarted();
    const [charge, ship] = run.requests();
    const { next, actions } = run.reply(refused('card declined'), charge);
    expect(statuses(actions)).toEqual(['Failed']);
    // The shipment's forward call may still land until its complete-by: no undo may overtake it.
    expect(next).toMatchObject({ state: 'Pending', mode: 'compensate', notBefore: new Date(ship!.completeBy) });
    expect(actions.filter((a) => a.type === 'dispatch')).toEqual([]);
    // Its reply is no longer applied: the group failed, and the member in doubt is undone anyway.
    expectIgnored(
      run,
      { type: 'reply', reply: answer(ship!, ok(), run.now) },
      'stale reply from shipping-1: create-shipment is not a member of the current group (#2, mode compensate)',
    );
    run.now = ship!.completeBy;
    run.apply({ type: 'claim' });
    expect(run.request()).toMatchObject({ step: 'create-shipment', mode: 'compensate', idempotencyKey: 'p-1/create-shipment/compensate' });
    run.reply(ok());
    // The refused member took no effect: it is not undone.
    expect(run.request()).toMatchObject({ step: 'reserve-inventory', mode: 'compensate' });
    run.reply(ok());
    expect(run.doc.state).toBe('Compensated');
    expect(states(run)).toEqual(['Compensated', 'Failed', 'Compensated', 'NotStarted']);
  });

  it('undoes a completed sibling too', () => {
    const run = groupStarted();
    const [charge, ship] = run.requests();
    run.reply(ok({ shipmentId: 's-1' }), ship);
    const { next } = run.reply(refused('card declined'), charge);
    // Nothing is in flight any more: the undo starts at once, with the completed shipment.
    expect(next.state).toBe('Compensating');
    expect(run.request()).toMatchObject({ step: 'create-shipment', compensates: { idempotencyKey: 'p-1/create-shipment', result: { shipmentId: 's-1' } } });
  });

  it('stops in Error when the workflow says so, and a resubmit sends again only the members not completed', () => {
    const run = groupStarted(groupFulfilmentManual);
    const [charge, ship] = run.requests();
    const { next, actions } = run.reply(refused('card declined'), charge);
    expect(next).toMatchObject({ state: 'Error', mode: 'forward', completeBy: null });
    expect(alerts(actions)).toEqual([expect.objectContaining({ kind: 'ProcessError', step: 'charge-payment' })]);
    // The shipment, in flight when the group failed, is in doubt: its reply is no longer applied.
    expectIgnored(run, { type: 'reply', reply: answer(ship!, ok(), run.now) }, 'stale reply from shipping-1: process is Error');
    const resubmitted = run.apply({ type: 'resubmit', by: 'op' });
    expect(resubmitted.history.why).toBe('resubmitted by op from group charge-and-ship');
    run.apply({ type: 'claim' });
    // Both are sent again under their keys: the refused one anew, the one in doubt as a repeat.
    expect(run.requests().map((r) => [r.step, r.idempotencyKey])).toEqual([
      ['charge-payment', 'p-1/charge-payment'],
      ['create-shipment', 'p-1/create-shipment'],
    ]);
    const [chargeAgain, shipAgain] = run.requests();
    run.reply(ok(), chargeAgain);
    run.reply(ok(), shipAgain);
    expect(run.request().step).toBe('send-mail');
  });

  it("does not send again a member that completed before a sibling's refusal", () => {
    const run = groupStarted(groupFulfilmentManual);
    const [charge, ship] = run.requests();
    run.reply(ok(), ship);
    run.reply(refused('card declined'), charge);
    run.apply({ type: 'resubmit', by: 'op' });
    run.apply({ type: 'claim' });
    expect(run.requests().map((r) => r.step)).toEqual(['charge-payment']);
  });
});

describe('when a member result cannot be carried', () => {
  it('undoes the group, that member included, and the steps before it', () => {
    const run = groupStarted();
    const [charge, ship] = run.requests();
    run.reply(ok(), ship);
    const { next, actions } = run.reply(okResultRefused('too large'), charge);
    expect(alerts(actions)).toEqual([expect.objectContaining({ kind: 'StepResultRefused', step: 'charge-payment' })]);
    // Its effect happened: it is undone too (after its sibling), with no result to undo by.
    expect(next.steps[1]).toMatchObject({ state: 'Completed', result: null });
    expect(run.request()).toMatchObject({ step: 'create-shipment', mode: 'compensate' });
    run.reply(ok());
    expect(run.request()).toMatchObject({ step: 'charge-payment', mode: 'compensate', compensates: { result: null } });
  });
});

describe('when an operator cancels while members are in flight', () => {
  it('holds the undo until the last member in flight passes its complete-by, then undoes every member', () => {
    const run = groupStarted();
    const [charge, ship] = run.requests();
    const { next } = run.apply({ type: 'cancel', by: 'op' });
    expect(next).toMatchObject({ state: 'Pending', mode: 'compensate', canceled: true, notBefore: new Date(ship!.completeBy) });
    expect(ship!.completeBy).toBeGreaterThan(charge!.completeBy);
    // Fenced off: a member's reply after the cancel changes nothing.
    expectIgnored(
      run,
      { type: 'reply', reply: answer(charge!, ok(), run.now) },
      'stale reply from payment-1: charge-payment is not a member of the current group (#2, mode compensate)',
    );
    run.now = charge!.completeBy;
    expect(run.try({ type: 'claim' })).toEqual({ applied: false, reason: `not claimable before ${new Date(ship!.completeBy).toISOString()}` });
    run.now = ship!.completeBy;
    run.apply({ type: 'claim' });
    expect(run.request()).toMatchObject({ step: 'create-shipment', mode: 'compensate' });
    run.reply(ok());
    expect(run.request()).toMatchObject({ step: 'charge-payment', mode: 'compensate' });
    run.reply(ok());
    run.reply(ok());
    expect(run.doc.state).toBe('Canceled');
    expect(states(run)).toEqual(['Compensated', 'Compensated', 'Compensated', 'NotStarted']);
  });

  it('also waits for a member whose earlier attempt was recovered but may still land', () => {
    const run = groupStarted();
    const [charge, ship] = run.requests();
    run.reply(ok(), ship);
    run.now = charge!.completeBy - 1;
    run.reply({ outcome: 'parked', retryAfterMs: 100, reason: 'circuit open' }, charge);
    const { next } = run.apply({ type: 'cancel', by: 'op' });
    expect(next.notBefore).toEqual(new Date(charge!.completeBy));
  });
});

describe('when a member agent is paused', () => {
  it('starts the other members, holds the paused one, then holds the process until the agent is resumed', () => {
    const run = new ProcessRun(groupFulfilment);
    run.apply({ type: 'claim' });
    run.pausedAgents.add('shipping');
    const started = run.reply(ok());
    expect(run.requests().map((r) => r.step)).toEqual(['charge-payment']);
    expect(started.history.why).toBe('ok from inventory-1 for reserve-inventory#1; dispatching group charge-and-ship: charge-payment');
    expect(started.next.state).toBe('Processing');
    expect(started.next.heldFor ?? null).toBeNull();
    expect(started.next.steps[2]?.state).toBe('NotStarted');
    const { next } = run.reply(ok());
    expect(next).toMatchObject({ state: 'Pending', heldFor: 'shipping', completeBy: null });
    expect(run.try({ type: 'claim' })).toEqual({ applied: false, reason: 'held: agent shipping is paused' });
    run.pausedAgents.delete('shipping');
    run.apply({ type: 'claim' });
    expect(run.requests().map((r) => r.step)).toEqual(['create-shipment']);
    run.reply(ok());
    expect(run.request().step).toBe('send-mail');
  });

  it('does not count a member timing out while its agent is paused', () => {
    const run = groupStarted();
    const [charge] = run.requests();
    run.pausedAgents.add('payment');
    run.now = charge!.completeBy;
    const { next } = run.apply({ type: 'expire' }, 'supervisor-1');
    expect(next.steps[1]).toMatchObject({ state: 'Running', failureCount: 0, completeBy: null });
    expect(next).toMatchObject({ state: 'Processing', failureCount: 0 });
  });

  it('holds the whole group when every member agent is paused', () => {
    const run = new ProcessRun(groupFulfilment);
    run.apply({ type: 'claim' });
    run.pausedAgents.add('shipping').add('payment');
    const { next } = run.reply(ok());
    expect(next).toMatchObject({ state: 'Pending', heldFor: 'payment' });
    expect(run.requests()).toEqual([]);
    run.pausedAgents.clear();
    run.apply({ type: 'claim' });
    expect(run.requests().map((r) => r.step)).toEqual(['charge-payment', 'create-shipment']);
  });
});

describe('when a member is parked', () => {
  it('sends it again at its own time while its sibling goes on', () => {
    const run = groupStarted();
    const [charge, ship] = run.requests();
    const parked = run.reply({ outcome: 'parked', retryAfterMs: 1000, reason: 'circuit open' }, charge);
    expect(parked.next).toMatchObject({ state: 'Pending', notBefore: new Date(run.now + 1000) });
    expect(parked.next.steps[1]).toMatchObject({ state: 'Running', completeBy: null, failureCount: 0 });
    run.reply(ok(), ship);
    run.now += 1000;
    run.apply({ type: 'claim' });
    expect(run.requests().map((r) => r.step)).toEqual(['charge-payment']);
    run.reply(ok());
    expect(run.request().step).toBe('send-mail');
  });
});
