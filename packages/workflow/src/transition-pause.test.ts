import { orderFulfilmentManualV1 } from './order-fulfilment';
import { HELD_UNTIL_RESUMED } from './pause-hold';
import { statuses } from './test-support/action-filters';
import { expectIgnored } from './test-support/expect-ignored';
import { ProcessRun, secondStepInFlight } from './test-support/process-run';
import { ok, refused, transient } from './test-support/reply-body';

const dispatchedAgents = (run: ProcessRun): string[] =>
  run.actions.flatMap((a) => (a.type === 'dispatch' ? [a.request.agent] : []));

/** A run whose payment step was just held for the paused payment agent (inventory done). */
function heldAtPayment(): ProcessRun {
  const run = new ProcessRun();
  run.pausedAgents.add('payment');
  run.apply({ type: 'claim' });
  run.reply(ok({ reservationId: 'r-1' }));
  return run;
}

describe('when an agent is paused', () => {
  it('holds a claim of a step for that agent: Pending until resumed, nothing sent, nothing counted', () => {
    const run = new ProcessRun();
    run.pausedAgents.add('inventory');
    const { next, actions, history } = run.apply({ type: 'claim' });
    expect(next).toMatchObject({ state: 'Pending', heldFor: 'inventory', lockedBy: null, completeBy: null, failureCount: 0, attempt: 1 });
    expect(next.notBefore).toEqual(HELD_UNTIL_RESUMED);
    expect(next.steps[0]).toMatchObject({ state: 'NotStarted', dispatches: 0 });
    // No dispatch, no wake-up, no Processing status yet: the application hears Processing when it runs.
    expect(actions).toEqual([]);
    expect(history.why).toBe('claimed by scheduler-1; reserve-inventory held: agent inventory is paused');
  });

  it('dispatches steps for agents that are not paused as usual', () => {
    const run = new ProcessRun();
    run.pausedAgents.add('shipping');
    run.apply({ type: 'claim' });
    expect(dispatchedAgents(run)).toEqual(['inventory']);
  });

  it('holds the next step when the reply of a step in flight arrives after the pause', () => {
    const run = heldAtPayment();
    expect(run.doc).toMatchObject({ state: 'Pending', heldFor: 'payment', currentStep: 1 });
    expect(run.doc.steps[0]?.state).toBe('Completed');
    expect(statuses(run.actions)).toEqual(['StepCompleted']);
    expect(dispatchedAgents(run)).toEqual([]);
  });

  it('refuses to claim held work while the agent stays paused, and claims it once resumed', () => {
    const run = heldAtPayment();
    run.now += 3_600_000;
    expectIgnored(run, { type: 'claim' }, 'held: agent payment is paused');
    run.pausedAgents.clear();
    const { next } = run.apply({ type: 'claim' });
    expect(next).toMatchObject({ state: 'Processing', heldFor: null, failureCount: 0 });
    expect(next.notBefore).toEqual(new Date(run.now));
    expect(run.request()).toMatchObject({ agent: 'payment', step: 'charge-payment', attempt: next.attempt, idempotencyKey: 'p-1/charge-payment' });
  });

  it('holds a step the supervisor recovers without counting a failure, and sends it again under the same key', () => {
    const run = secondStepInFlight();
    const inFlight = run.request();
    run.pausedAgents.add('payment');
    const { next, actions } = run.expire();
    expect(next).toMatchObject({ state: 'Pending', heldFor: 'payment', failureCount: 0, completeBy: null });
    expect(next.attempt).toBeGreaterThan(inFlight.attempt);
    // Outcome unknown: the step stays in doubt, so a cancel would undo it.
    expect(next.steps[1]?.state).toBe('Running');
    expect(actions).toEqual([]);
    // The late reply of the expired attempt is stale.
    expect(run.try({ type: 'reply', reply: { ...inFlight, schemaVersion: 1, agentInstance: 'payment-1', at: run.now, outcome: 'ok', result: {} } })).toMatchObject({ applied: false });
    run.pausedAgents.clear();
    run.apply({ type: 'claim' });
    expect(run.request()).toMatchObject({ idempotencyKey: inFlight.idempotencyKey, step: 'charge-payment' });
  });

  it('holds a step whose agent gave up on its retries without counting a failure', () => {
    const run = secondStepInFlight();
    run.pausedAgents.add('payment');
    expect(run.reply(transient).next).toMatchObject({ state: 'Pending', heldFor: 'payment', failureCount: 0 });
  });

  it('still counts failures of agents that are not paused', () => {
    const run = secondStepInFlight();
    run.pausedAgents.add('shipping');
    const { next } = run.expire();
    expect(next).toMatchObject({ state: 'Pending', failureCount: 1 });
    expect(next.heldFor ?? null).toBeNull();
  });

  it('cancels a held process, waits for the complete-by of the attempt its agent gave up on, and holds its undo for a paused agent too', () => {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    run.reply(ok({ reservationId: 'r-1' }));
    run.reply(ok({ chargeId: 'c-1' }));
    run.pausedAgents.add('shipping');
    run.pausedAgents.add('payment');
    // create-shipment was dispatched before the pause; its agent gives up; it is held.
    const gaveUp = run.request();
    run.reply(transient);
    expect(run.doc).toMatchObject({ state: 'Pending', heldFor: 'shipping' });
    const cancel = run.apply({ type: 'cancel', by: 'alice', reason: 'customer asked' });
    expect(cancel.next).toMatchObject({ state: 'Pending', mode: 'compensate', heldFor: null });
    // Nothing is held at the agent, but a redelivery of the request it gave up on may still call
    // until that attempt's complete-by (its reply's send may have failed): the undo waits for it.
    expect(cancel.next.notBefore).toEqual(new Date(gaveUp.completeBy));
    expect(cancel.history.why).toBe(`canceled by alice: customer asked; undo held ${gaveUp.completeBy - run.now} ms until the in-flight attempt's complete-by`);
    run.now = gaveUp.completeBy;
    // The shipment's outcome is unknown and shipping is paused: its undo is held.
    const claimUndo = run.apply({ type: 'claim' });
    expect(claimUndo.next).toMatchObject({ state: 'Pending', heldFor: 'shipping', currentStep: 2, mode: 'compensate' });
    expect(claimUndo.next.steps[2]).toMatchObject({ state: 'Compensating', idempotencyKey: 'p-1/create-shipment/compensate', dispatches: 0 });
    run.pausedAgents.delete('shipping');
    run.apply({ type: 'claim' });
    expect(run.request()).toMatchObject({ agent: 'shipping', mode: 'compensate' });
    // The refund goes to payment, still paused: held in turn, the release waits behind it.
    const refundHeld = run.reply(ok());
    expect(refundHeld.next).toMatchObject({ state: 'Pending', heldFor: 'payment', currentStep: 1 });
    run.pausedAgents.clear();
    run.apply({ type: 'claim' });
    run.reply(ok());
    run.reply(ok());
    expect(run.doc).toMatchObject({ state: 'Canceled', heldFor: null });
    expect(statuses(run.actions)).toEqual(['Canceled']);
  });

  it('holds the undo of a permanent refusal when the agent to undo is paused', () => {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    run.reply(ok({ reservationId: 'r-1' }));
    run.pausedAgents.add('inventory');
    const { next } = run.reply(refused('card declined'));
    expect(next).toMatchObject({ state: 'Pending', mode: 'compensate', heldFor: 'inventory', currentStep: 0 });
    expect(statuses(run.actions)).toEqual(['Failed']);
  });

  it('holds a resubmitted Error process whose failed step goes to a paused agent', () => {
    const run = new ProcessRun(orderFulfilmentManualV1);
    run.apply({ type: 'claim' });
    run.reply(ok());
    for (let i = 0; i < orderFulfilmentManualV1.failureThreshold; i++) {
      run.expire();
      if (run.doc.state === 'Pending') run.apply({ type: 'claim' });
    }
    expect(run.doc.state).toBe('Error');
    run.pausedAgents.add('payment');
    run.apply({ type: 'resubmit', by: 'alice' });
    const { next } = run.apply({ type: 'claim' });
    expect(next).toMatchObject({ state: 'Pending', heldFor: 'payment', failureCount: 0 });
  });

  it('holds a step parked after the pause instead of spending its parking bound', () => {
    const run = secondStepInFlight();
    run.reply({ outcome: 'parked', retryAfterMs: 1000, reason: 'circuit open' });
    run.now += 29 * 60_000;
    run.apply({ type: 'claim' });
    run.pausedAgents.add('payment');
    // 31 minutes parked in all: past the 30-minute bound, yet no threshold, no alert.
    run.now += 2 * 60_000;
    const { next, actions } = run.reply({ outcome: 'parked', retryAfterMs: 1000, reason: 'circuit open' });
    expect(next).toMatchObject({ state: 'Pending', heldFor: 'payment', mode: 'forward' });
    expect(next.steps[1]?.parkedSince).toBeNull();
    expect(actions).toEqual([]);
  });

  it('gives a held step a fresh parking window', () => {
    const run = secondStepInFlight();
    run.reply({ outcome: 'parked', retryAfterMs: 1000, reason: 'circuit open' });
    expect(run.doc.steps[1]?.parkedSince).not.toBeNull();
    run.pausedAgents.add('payment');
    run.now += 1000;
    expect(run.apply({ type: 'claim' }).next.steps[1]?.parkedSince).toBeNull();
  });

  it('runs no complete-by while held: the supervisor has nothing to expire', () => {
    const run = heldAtPayment();
    run.now += 10 * 60_000;
    expectIgnored(run, { type: 'expire' }, 'not expired: state Pending');
  });
});
