import { MAX_SIGNALS_PER_PROCESS, MAX_STEP_RESULT_BYTES } from '@sas/contracts';
import { expectIgnored } from './test-support/expect-ignored';
import { ProcessRun } from './test-support/process-run';
import { ok } from './test-support/reply-body';
import { statuses } from './test-support/action-filters';
import { approvalWorkflow, dispatched, signal, waitingForSignal } from './test-support/signal-run';

describe('a signal for the signal step waiting for it', () => {
  it('completes the step with its data, marks it consumed by the step, and dispatches the next step', () => {
    const run = waitingForSignal();
    run.now += 60_000;
    const { history } = run.apply(signal('approved', 's-1', { approvedBy: 'ann' }));

    expect(run.doc.steps[1]).toMatchObject({ state: 'Completed', result: { approvedBy: 'ann' }, finishedAt: new Date(run.now) });
    expect(run.doc.signals).toEqual([{ id: 's-1', name: 'approved', data: { approvedBy: 'ann' }, at: new Date(run.now), consumedBy: 'approval' }]);
    expect(dispatched(run)).toEqual(['ship/forward']);
    expect(statuses(run.actions)).toEqual(['StepCompleted']);
    expect(history.why).toBe('signal approved (s-1) from shop; consumed by approval; dispatching ship');
  });

  it('is applied once: the same signal id again changes nothing and is answered as the first time', () => {
    const run = waitingForSignal();
    run.apply(signal());
    const message = `signal s-1 (approved) was received at ${new Date(run.now).toISOString()} and consumed by approval; counted once`;
    const before = structuredClone(run.doc);

    expect(run.try(signal())).toEqual({ applied: false, reason: message, alreadyApplied: message });
    expect(run.doc).toEqual(before);
    // Even after the process finished, a repeat is answered as the first one, not "not used".
    run.reply(ok({}));
    expect(run.doc.state).toBe('Processed');
    expect(run.try(signal())).toEqual({ applied: false, reason: message, alreadyApplied: message });
  });
});

describe('a signal sent before its step is reached', () => {
  it('is kept, and completes the step at once when it comes up', () => {
    const run = new ProcessRun(approvalWorkflow());
    run.apply({ type: 'claim' });
    const reserve = run.request();
    const { history, next } = run.apply(signal('approved', 'early-1'));
    expect(history.why).toBe('signal approved (early-1) from shop kept until step approval is reached');
    expect(next).toMatchObject({ state: 'Processing', currentStep: 0 });
    expect(run.actions).toEqual([]);

    run.now += 100;
    run.reply(ok({ reservationId: 'r-1' }), reserve);
    expect(run.doc.steps[1]).toMatchObject({ state: 'Completed', result: { by: 'ann' } });
    expect(run.doc.signals?.[0]?.consumedBy).toBe('approval');
    expect(dispatched(run)).toEqual(['ship/forward']);
  });

  it('takes the oldest kept signal of the name, leaving later ones kept', () => {
    const run = new ProcessRun(approvalWorkflow());
    run.apply({ type: 'claim' });
    const reserve = run.request();
    run.apply(signal('approved', 'a', { n: 1 }));
    run.now += 1;
    run.apply(signal('approved', 'b', { n: 2 }));
    run.reply(ok({}), reserve);
    expect(run.doc.steps[1]!.result).toEqual({ n: 1 });
    expect(run.doc.signals?.map((s) => [s.id, s.consumedBy])).toEqual([
      ['a', 'approval'],
      ['b', null],
    ]);
  });

  it('of a name no step waits for, is kept and answered so', () => {
    const run = waitingForSignal();
    const { history } = run.apply(signal('rejected', 's-9'));
    expect(history.why).toBe('signal rejected (s-9) from shop kept; no step waits for it now');
    expect(run.doc.steps[1]!.state).toBe('Running');
    expect(run.doc.state).toBe('Pending');
  });
});

describe('a signal the process cannot take', () => {
  it('is refused for a finished process, saying its state', () => {
    const run = waitingForSignal();
    run.apply({ type: 'cancel', by: 'op' });
    run.apply({ type: 'claim' });
    run.reply(ok({}));
    expect(run.doc.state).toBe('Canceled');
    expectIgnored(run, signal(), 'process is Canceled; signal not used');
  });

  it('is refused while the process is being undone', () => {
    const run = waitingForSignal();
    run.apply({ type: 'cancel', by: 'op' });
    expectIgnored(run, signal(), 'process is being undone (Pending); signal not used');
  });

  it('is refused beyond the most signals a process keeps', () => {
    const run = waitingForSignal();
    for (let i = 0; i < MAX_SIGNALS_PER_PROCESS; i++) run.apply(signal('other', `s-${i}`));
    expectIgnored(run, signal('approved', 'one-more'), `process already keeps ${MAX_SIGNALS_PER_PROCESS} signals, the most it may; signal not used (a process needs few: check the sender)`);
  });

  it('is refused when its data is larger than a step result may be', () => {
    const run = waitingForSignal();
    const result = run.try(signal('approved', 's-big', { blob: 'x'.repeat(MAX_STEP_RESULT_BYTES) }));
    expect(result.applied).toBe(false);
    if (!result.applied) expect(result.reason).toMatch(/^signal approved: the data is \d+ bytes as JSON, more than the 16384 a step result may carry; signal not used$/);
  });
});

describe('a cancel racing a signal', () => {
  it('cancel first: the signal is refused; nothing is sent for the signal step, the earlier step is undone', () => {
    const run = waitingForSignal();
    run.apply({ type: 'cancel', by: 'op' });
    expect(run.try(signal()).applied).toBe(false);
    run.apply({ type: 'claim' });
    expect(dispatched(run)).toEqual(['reserve/compensate']);
    // The step stopped waiting when the undo began: withdrawn, with no result.
    expect(run.doc.steps[1]).toMatchObject({ state: 'Compensated', finishedAt: new Date(run.now), result: null, dispatches: 0 });
    run.reply(ok({}));
    expect(run.doc.steps.map((s) => s.state)).toEqual(['Compensated', 'Compensated', 'NotStarted']);
  });

  it('signal first: the step completes and the next is dispatched; the cancel then undoes that one in flight too', () => {
    const run = waitingForSignal();
    run.apply(signal());
    const shipping = run.request();
    const { next } = run.apply({ type: 'cancel', by: 'op' });
    expect(next.notBefore).toEqual(new Date(shipping.completeBy));
  });
});
