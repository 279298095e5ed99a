import type { StatusEvents } from '@sas/contracts';
import { createProcess } from './create-process';
import { alerts, statusEvents, statuses } from './test-support/action-filters';
import { groupFulfilment } from './test-support/group-workflow';
import { ProcessRun, T0 } from './test-support/process-run';
import { ok, refused } from './test-support/reply-body';
import type { WorkflowDefinition } from './workflow-definition';

/** group-fulfilment with a condition on the entry `name`. */
function withCondition(name: string, condition: string, base: WorkflowDefinition = groupFulfilment): WorkflowDefinition {
  return { ...base, steps: base.steps.map((e) => (e.name === name ? { ...e, condition } : e)) };
}

/** A run of `workflow` whose order payload is `payload`. */
function runOf(workflow: WorkflowDefinition, payload: Record<string, unknown>, statusEvents?: StatusEvents): ProcessRun {
  const run = new ProcessRun(workflow);
  run.doc = createProcess({ processId: 'p-1', orderId: 'o-1', payload: payload as never, replyTo: 'app.status', statusEvents, workflow, now: T0 });
  return run;
}

const states = (run: ProcessRun): string[] => run.doc.steps.map((s) => s.state);

/** Completes both members of the group just dispatched; returns the second reply's transition. */
function completeGroup(run: ProcessRun, charge = ok()): ReturnType<ProcessRun['reply']> {
  const [chargeRequest, shipRequest] = run.requests();
  run.reply(charge, chargeRequest);
  return run.reply(ok(), shipRequest);
}

describe('a condition that is false', () => {
  it('skips the step: never dispatched, recorded in the history, told as StepSkipped, and the next entry runs', () => {
    const workflow = withCondition('send-mail', 'payload.mail == true');
    const run = runOf(workflow, { mail: false });
    run.apply({ type: 'claim' });
    run.reply(ok());
    const { next, actions, history } = completeGroup(run);
    expect(actions.filter((a) => a.type === 'dispatch')).toEqual([]);
    expect(statusEvents(actions).map((e) => [e.status, e.step])).toEqual([
      ['StepCompleted', 'create-shipment'],
      ['StepSkipped', 'send-mail'],
      ['Processed', undefined],
    ]);
    expect(next.state).toBe('Processed');
    expect(next.steps[3]).toMatchObject({ state: 'Skipped', dispatches: 0, finishedAt: new Date(run.now) });
    expect(history.why).toBe('ok from shipping-1 for create-shipment#3; group charge-and-ship done; skipped send-mail (condition false); all steps done');
  });

  it('runs the step when true', () => {
    const run = runOf(withCondition('send-mail', 'payload.mail == true'), { mail: true });
    run.apply({ type: 'claim' });
    run.reply(ok());
    completeGroup(run);
    expect(run.request().step).toBe('send-mail');
  });

  it('skips every member of a group, and the group is never undone', () => {
    const workflow = withCondition('charge-and-ship', 'payload.total > 0');
    const run = runOf(workflow, { total: 0 });
    run.apply({ type: 'claim' });
    const { history } = run.reply(ok());
    expect(states(run)).toEqual(['Completed', 'Skipped', 'Skipped', 'Running']);
    expect(history.why).toBe('ok from inventory-1 for reserve-inventory#1; skipped charge-and-ship (condition false); dispatching send-mail');
    expect(statuses(run.actions)).toEqual(['StepCompleted', 'StepSkipped']);
    run.reply(refused('no such address'));
    // Undone: only what ran. The skipped members have compensations but took no effect.
    expect(run.request()).toMatchObject({ step: 'reserve-inventory', mode: 'compensate' });
    run.reply(ok());
    expect(run.doc.state).toBe('Compensated');
    expect(states(run)).toEqual(['Compensated', 'Skipped', 'Skipped', 'Failed']);
  });

  it('skips the first entry at the first claim, which still tells the order it is Processing', () => {
    const run = runOf(withCondition('reserve-inventory', 'payload.sku != ""'), { sku: '' });
    const { actions } = run.apply({ type: 'claim' });
    expect(statuses(actions)).toEqual(['Processing', 'StepSkipped']);
    expect(run.requests().map((r) => r.step)).toEqual(['charge-payment', 'create-shipment']);
    // Not an earlier result: a skipped step is absent from what later steps receive.
    expect(run.requestFor('charge-payment').results).toEqual({});
  });

  it('tells Processing at once when the first entry is skipped and the next one is held for a paused agent', () => {
    const run = runOf(withCondition('reserve-inventory', 'false'), {});
    run.pausedAgents.add('payment').add('shipping');
    const { next, actions } = run.apply({ type: 'claim' });
    expect(next).toMatchObject({ state: 'Pending', heldFor: 'payment' });
    expect(statuses(actions)).toEqual(['Processing', 'StepSkipped']);
  });

  it("is a progress event: an order that asked for 'final' events is not sent StepSkipped", () => {
    const run = runOf(withCondition('reserve-inventory', 'false'), {}, 'final');
    const { actions } = run.apply({ type: 'claim' });
    expect(statuses(actions)).toEqual([]);
    expect(run.doc.steps[0]?.state).toBe('Skipped');
  });
});

describe('what a condition sees', () => {
  it('reads earlier results by step name, group members included, and null for a skipped step', () => {
    const base = withCondition('reserve-inventory', 'payload.reserve');
    const workflow = withCondition('send-mail', 'results["reserve-inventory"] == null && results["charge-payment"].chargeId == "c-1"', base);
    const run = runOf(workflow, { reserve: false });
    run.apply({ type: 'claim' });
    completeGroup(run, ok({ chargeId: 'c-1' }));
    expect(run.request().step).toBe('send-mail');
  });
});

describe('a condition that cannot be decided', () => {
  it('is a permanent failure of its entry naming it and the CEL error; the steps before are undone', () => {
    const run = runOf(withCondition('send-mail', 'payload.customer.vip'), {});
    run.apply({ type: 'claim' });
    run.reply(ok());
    const { next, actions, history } = completeGroup(run);
    expect(next.steps[3]).toMatchObject({ state: 'Failed', dispatches: 0 });
    expect(next.steps[3]?.error).toMatch(/^condition of send-mail failed: No such key: customer/);
    expect(next.reason).toBe(next.steps[3]?.error);
    expect(statusEvents(actions)).toContainEqual(expect.objectContaining({ status: 'Failed', step: 'send-mail' }));
    expect(history.why).toMatch(/condition of send-mail failed: No such key: customer.*: permanent failure; compensating create-shipment$/);
    expect(next).toMatchObject({ mode: 'compensate', state: 'Compensating' });
  });

  it('refuses a value that is not a boolean', () => {
    const run = runOf(withCondition('reserve-inventory', 'payload.count'), { count: 3 });
    const { next } = run.apply({ type: 'claim' });
    expect(next.steps[0]?.error).toBe('condition of reserve-inventory failed: the condition gave a value of type number, not a boolean');
    expect(next.state).toBe('Compensated');
  });

  it("stops in Error with an alert when the workflow's onPermanentFailure is error; a resubmit evaluates it again", () => {
    const workflow: WorkflowDefinition = { ...withCondition('charge-and-ship', 'payload.total > 0'), onPermanentFailure: 'error' };
    const run = runOf(workflow, { total: 'ten' });
    run.apply({ type: 'claim' });
    const { next, actions } = run.reply(ok());
    expect(next.state).toBe('Error');
    expect(states(run)).toEqual(['Completed', 'Failed', 'Failed', 'NotStarted']);
    expect(alerts(actions)).toEqual([expect.objectContaining({ kind: 'ProcessError', step: 'charge-payment' })]);
    expect(alerts(actions)[0]?.reason).toMatch(/^condition of charge-and-ship failed: .*; fix the order or the workflow, then resubmit or cancel the process$/);
    run.apply({ type: 'resubmit', by: 'op' });
    expect(states(run)).toEqual(['Completed', 'NotStarted', 'NotStarted', 'NotStarted']);
    const again = run.apply({ type: 'claim' });
    expect(again.next.state).toBe('Error');
    expect(run.requests()).toEqual([]);
  });
});
