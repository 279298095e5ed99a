import { alerts, statuses } from './test-support/action-filters';
import { ProcessRun, T0 } from './test-support/process-run';
import type { SignalStep } from './workflow-definition';
import { ok } from './test-support/reply-body';
import { HOUR, approvalWorkflow, dispatched, signal, waitingForSignal } from './test-support/signal-run';

describe('a signal step when it comes up with no signal kept', () => {
  it('waits as document state: Running with its deadline, the process Pending until then, a wake for then', () => {
    const run = waitingForSignal();
    const deadline = T0 + 100 + HOUR;

    expect(run.doc).toMatchObject({ state: 'Pending', currentStep: 1, lockedBy: null, notBefore: new Date(deadline) });
    expect(run.doc.steps[1]).toMatchObject({ kind: 'signal', signal: 'approved', state: 'Running', waitUntil: new Date(deadline) });
    expect(run.actions.filter((a) => a.type !== 'status')).toEqual([{ type: 'wake', atMs: deadline }]);
  });
});

describe('when the signal step times out', () => {
  it('compensate: fails the step and undoes the earlier steps; the process ends Compensated', () => {
    const run = waitingForSignal('compensate');
    run.now = run.doc.notBefore.getTime();
    const { history } = run.apply({ type: 'claim' });

    expect(run.doc.steps[1]).toMatchObject({ state: 'Failed', error: `no signal approved within ${HOUR} ms (deadline ${new Date(run.now).toISOString()})` });
    expect(dispatched(run)).toEqual(['reserve/compensate']);
    expect(history.why).toMatch(/: undoing the earlier steps; compensating reserve$/);
    run.reply(ok({}));
    expect(run.doc.state).toBe('Compensated');
  });

  it('error: stops in Error with a ProcessError alert; a resubmit waits again with a new deadline', () => {
    const run = waitingForSignal('error');
    run.now = run.doc.notBefore.getTime();
    run.apply({ type: 'claim' });
    expect(run.doc.state).toBe('Error');
    expect(alerts(run.actions).map((a) => [a.kind, a.step])).toEqual([['ProcessError', 'approval']]);
    expect(statuses(run.actions)).toEqual(['Failed']);

    run.now += 10 * HOUR;
    run.apply({ type: 'resubmit', by: 'op' });
    run.apply({ type: 'claim' });
    expect(run.doc.steps[1]).toMatchObject({ state: 'Running', waitUntil: new Date(run.now + HOUR), error: null });
    expect(run.doc).toMatchObject({ state: 'Pending', notBefore: new Date(run.now + HOUR) });
  });

  it('error: a signal sent while the process is in Error is kept, and the resubmitted step takes it at once', () => {
    const run = waitingForSignal('error');
    run.now = run.doc.notBefore.getTime();
    run.apply({ type: 'claim' });
    const { history } = run.apply(signal('approved', 'late-1', { approvedBy: 'bob' }));
    expect(history.why).toBe('signal approved (late-1) from shop kept until step approval is reached');
    expect(run.doc.state).toBe('Error');

    run.apply({ type: 'resubmit', by: 'op' });
    run.apply({ type: 'claim' });
    expect(run.doc.steps[1]).toMatchObject({ state: 'Completed', result: { approvedBy: 'bob' } });
    expect(dispatched(run)).toEqual(['ship/forward']);
  });

  it('continue: completes the step with { timedOut: true } and dispatches the next step', () => {
    const run = waitingForSignal('continue');
    run.now = run.doc.notBefore.getTime();
    run.apply({ type: 'claim' });

    expect(run.doc.steps[1]).toMatchObject({ state: 'Completed', result: { timedOut: true } });
    expect(dispatched(run)).toEqual(['ship/forward']);
    expect(statuses(run.actions)).toEqual(['StepCompleted']);
  });

  it('goes back to sleep until the deadline when claimed before it', () => {
    const run = waitingForSignal();
    const deadline = run.doc.notBefore.getTime();
    run.doc.notBefore = new Date(run.now);
    run.apply({ type: 'claim' });
    expect(run.doc).toMatchObject({ state: 'Pending', notBefore: new Date(deadline) });
    expect(run.doc.steps[1]!.state).toBe('Running');
  });
});

describe('a signal racing the timeout: whichever commits first wins, the other is answered truthfully', () => {
  it('signal first: the step completes; the timeout claim then finds nothing to claim', () => {
    const run = waitingForSignal('compensate');
    run.now = run.doc.notBefore.getTime();
    run.apply(signal());
    expect(dispatched(run)).toEqual(['ship/forward']);
    expect(run.try({ type: 'claim' })).toEqual({ applied: false, reason: 'not claimable: state is Processing' });
  });

  it('timeout first (compensate): the signal is refused because the process is being undone', () => {
    const run = waitingForSignal('compensate');
    run.now = run.doc.notBefore.getTime();
    run.apply({ type: 'claim' });
    expect(run.try(signal())).toEqual({ applied: false, reason: 'process is being undone (Compensating); signal not used' });
  });

  it('timeout first (continue): the signal is kept, and the answer says no step waits for it', () => {
    const run = waitingForSignal('continue');
    run.now = run.doc.notBefore.getTime();
    run.apply({ type: 'claim' });
    const { history } = run.apply(signal());
    expect(history.why).toBe('signal approved (s-1) from shop kept; no step waits for it now');
    expect(run.doc.steps[1]!.result).toEqual({ timedOut: true });
  });
});

describe('a signal step with rejectWhen: a signal that says no', () => {
  /** The approval workflow whose signal step rejects when `data.approved == false`, then `onReject`. */
  function rejecting(onReject?: 'compensate' | 'error'): ProcessRun {
    const workflow = approvalWorkflow();
    const entry = workflow.steps[1] as SignalStep;
    workflow.steps[1] = { ...entry, signal: { ...entry.signal, rejectWhen: 'data.approved == false', ...(onReject && { onReject }) } };
    const run = new ProcessRun(workflow);
    run.apply({ type: 'claim' });
    run.now += 100;
    run.reply(ok({ reservationId: 'r-1' }));
    return run;
  }

  it('undoes the earlier steps when the signal rejects, naming the signal in the step, the reason and the status event', () => {
    const run = rejecting();
    const { history } = run.apply(signal('approved', 'no-1', { approved: false, by: 'credit desk' }));
    const what = 'rejected by signal approved (no-1): data.approved == false';
    expect(run.doc.steps[1]).toMatchObject({ state: 'Failed', error: what });
    expect(run.doc.reason).toBe(`approval: ${what}`);
    expect(run.doc.signals?.[0]).toMatchObject({ id: 'no-1', consumedBy: 'approval' });
    expect(history.why).toContain(`${what}: undoing the earlier steps`);
    expect(run.actions).toContainEqual(expect.objectContaining({ type: 'status', event: expect.objectContaining({ status: 'Failed', reason: what }) }));
    expect(dispatched(run)).toEqual(['reserve/compensate']);
    run.reply(ok({}));
    expect(run.doc.state).toBe('Compensated');
  });

  it('goes on when the signal approves', () => {
    const run = rejecting();
    run.apply(signal('approved', 'yes-1', { approved: true }));
    expect(run.doc.steps[1]).toMatchObject({ state: 'Completed', result: { approved: true } });
    expect(dispatched(run)).toEqual(['ship/forward']);
  });

  it('rejects with a signal kept before the step came up, when the step reaches it', () => {
    const workflow = approvalWorkflow();
    const entry = workflow.steps[1] as SignalStep;
    workflow.steps[1] = { ...entry, signal: { ...entry.signal, rejectWhen: 'data.approved == false' } };
    const run = new ProcessRun(workflow);
    run.apply(signal('approved', 'early-no', { approved: false }));
    run.apply({ type: 'claim' });
    run.now += 100;
    run.reply(ok({ reservationId: 'r-1' }));
    expect(run.doc.steps[1]).toMatchObject({ state: 'Failed', error: 'rejected by signal approved (early-no): data.approved == false' });
    expect(dispatched(run)).toEqual(['reserve/compensate']);
  });

  it('onReject error: stops in Error with an alert instead of undoing', () => {
    const run = rejecting('error');
    run.apply(signal('approved', 'no-2', { approved: false }));
    expect(run.doc.state).toBe('Error');
    expect(alerts(run.actions).map((a) => [a.kind, a.step])).toEqual([['ProcessError', 'approval']]);
    expect(dispatched(run)).toEqual([]);
  });

  it('stops in Error, never approving silently, when rejectWhen cannot be decided on the data sent', () => {
    const run = rejecting();
    run.apply(signal('approved', 'odd-1', { verdict: 'maybe' }));
    expect(run.doc.state).toBe('Error');
    expect(run.doc.steps[1]!.error).toMatch(/^signal approved \(odd-1\): rejectWhen 'data\.approved == false' could not be decided \(.+\)$/);
    expect(dispatched(run)).toEqual([]);
  });
});
