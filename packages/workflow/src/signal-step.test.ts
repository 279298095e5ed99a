import { alerts, statuses } from './test-support/action-filters';
import { T0 } from './test-support/process-run';
import { ok } from './test-support/reply-body';
import { HOUR, dispatched, signal, waitingForSignal } from './test-support/signal-run';

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
