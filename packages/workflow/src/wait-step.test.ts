import { alerts, statuses } from './test-support/action-filters';
import { ProcessRun, T0 } from './test-support/process-run';
import { ok } from './test-support/reply-body';
import type { WorkflowDefinition, WorkflowEntry } from './workflow-definition';

const retry = { maxAttempts: 3, initialBackoffMs: 50, maxBackoffMs: 500, multiplier: 2, jitter: 0.5 };
const task = (name: string, agent: string): WorkflowEntry => ({ name, agent, operation: 'do', compensation: 'undo', completeByMs: 5_000, retry });
const MINUTE = 60_000;

/** reserve (a task), then the wait under test, then ship (a task). */
function withWait(wait: { ms: number } | { until: string }, extra: Partial<WorkflowDefinition> = {}): WorkflowDefinition {
  return {
    name: 'cool-off',
    version: 1,
    steps: [task('reserve', 'inventory'), { name: 'cool-off', wait }, task('ship', 'shipping')],
    failureThreshold: 3,
    onThreshold: { policy: 'compensate' },
    onPermanentFailure: 'compensate',
    retentionMs: 86_400_000,
    ...extra,
  };
}

/** A run whose first task has just completed, so the wait step has come up. */
function atWait(wait: { ms: number } | { until: string }, payload?: Record<string, unknown>, extra?: Partial<WorkflowDefinition>): ProcessRun {
  const run = new ProcessRun(withWait(wait, extra));
  if (payload) run.doc.payload = payload;
  run.apply({ type: 'claim' });
  run.now += 100;
  run.reply(ok({ reservationId: 'r-1' }));
  return run;
}

const dispatched = (run: ProcessRun): string[] => run.actions.flatMap((a) => (a.type === 'dispatch' ? [`${a.request.step}/${a.request.mode}`] : []));

describe('a wait step of a fixed time', () => {
  it('sleeps as document state: the step Running with its instant, the process Pending until then, a wake for then, nothing sent', () => {
    const run = atWait({ ms: 5 * MINUTE });
    const until = T0 + 100 + 5 * MINUTE;

    expect(run.doc).toMatchObject({ state: 'Pending', currentStep: 1, lockedBy: null, completeBy: null, notBefore: new Date(until) });
    expect(run.doc.steps[1]).toMatchObject({ kind: 'wait', state: 'Running', waitUntil: new Date(until), dispatches: 0 });
    expect(run.actions.filter((a) => a.type !== 'status')).toEqual([{ type: 'wake', atMs: until }]);
    expect(statuses(run.actions)).toEqual(['StepCompleted']);
  });

  it('is not claimable before its instant', () => {
    const run = atWait({ ms: 5 * MINUTE });
    run.now += 5 * MINUTE - 1;
    expect(run.try({ type: 'claim' })).toEqual({ applied: false, reason: `not claimable before ${new Date(T0 + 100 + 5 * MINUTE).toISOString()}` });
  });

  it('fires on the claim at its instant: completed with { firedAt }, a StepCompleted, and the next step dispatched', () => {
    const run = atWait({ ms: 5 * MINUTE });
    run.now = run.doc.notBefore.getTime();
    const { history } = run.apply({ type: 'claim' });

    expect(run.doc.steps[1]).toMatchObject({ state: 'Completed', result: { firedAt: new Date(run.now).toISOString() }, finishedAt: new Date(run.now) });
    expect(dispatched(run)).toEqual(['ship/forward']);
    expect(statuses(run.actions)).toEqual(['StepCompleted']);
    expect(history.why).toBe('claimed by scheduler-1; cool-off fired; dispatching ship');
  });

  it('fires from a copy of the stored document as well: nothing but the document holds the timer', () => {
    const run = atWait({ ms: 5 * MINUTE });
    // A restart: the document read back from the store (dates and all), by another scheduler.
    run.doc = structuredClone(run.doc);
    run.now = run.doc.notBefore.getTime() + 3 * MINUTE;
    run.apply({ type: 'claim' }, 'scheduler-2');
    expect(dispatched(run)).toEqual(['ship/forward']);
  });

  it('goes back to sleep until its instant when claimed early (released before it for another reason)', () => {
    const run = atWait({ ms: 5 * MINUTE });
    const until = run.doc.steps[1]!.waitUntil!.getTime();
    run.doc.notBefore = new Date(run.now);
    const { history } = run.apply({ type: 'claim' });

    expect(run.doc).toMatchObject({ state: 'Pending', notBefore: new Date(until) });
    expect(run.actions).toEqual([{ type: 'wake', atMs: until }]);
    expect(history.why).toBe(`claimed by scheduler-1; cool-off still waits until ${new Date(until).toISOString()}`);
  });
});

describe('when a wait step is claimed just before its instant, notBefore not in the way', () => {
  // notBefore keeps most early claims away, but a process released earlier for another reason is
  // claimable before the instant: the wait step itself must decide, to the millisecond.
  it('does not fire 1 ms before its instant: it goes back to sleep until it, and fires at it', () => {
    const run = atWait({ ms: 5 * MINUTE });
    const until = run.doc.steps[1]!.waitUntil!.getTime();
    run.doc.notBefore = new Date(run.now);
    run.now = until - 1;
    run.apply({ type: 'claim' });
    expect(run.doc).toMatchObject({ state: 'Pending', notBefore: new Date(until) });
    expect(run.doc.steps[1]).toMatchObject({ state: 'Running', finishedAt: null });
    expect(run.actions).toEqual([{ type: 'wake', atMs: until }]);

    run.now = until;
    run.apply({ type: 'claim' });
    expect(run.doc.steps[1]).toMatchObject({ state: 'Completed', result: { firedAt: new Date(until).toISOString() } });
    expect(dispatched(run)).toEqual(['ship/forward']);
  });

  it('never fires before an instant given with a fraction of a millisecond: it waits until the next whole one', () => {
    const instant = T0 + 7 * MINUTE + 0.4;
    const run = atWait({ until: `${instant}` });
    expect(run.doc.steps[1]!.waitUntil).toEqual(new Date(Math.ceil(instant)));
    const rfc = atWait({ until: 'payload.shipAt' }, { shipAt: '2030-01-02T08:00:00.0001Z' });
    expect(rfc.doc.steps[1]!.waitUntil).toEqual(new Date(Date.parse('2030-01-02T08:00:00.001Z')));
    rfc.doc.notBefore = new Date(rfc.now);
    rfc.now = Date.parse('2030-01-02T08:00:00Z');
    rfc.apply({ type: 'claim' });
    expect(rfc.doc.steps[1]).toMatchObject({ state: 'Running' });
  });
});

describe('a wait step until an instant given by CEL', () => {
  it('waits until an RFC 3339 instant from the payload', () => {
    const run = atWait({ until: 'payload.shipAt' }, { shipAt: '2030-01-02T08:00:00Z' });
    expect(run.doc.notBefore).toEqual(new Date('2030-01-02T08:00:00Z'));
    expect(run.doc.steps[1]!.waitUntil).toEqual(new Date('2030-01-02T08:00:00Z'));
  });

  it('waits until epoch milliseconds, and until a CEL timestamp computed from a result', () => {
    expect(atWait({ until: `${T0 + 7 * MINUTE}` }).doc.notBefore).toEqual(new Date(T0 + 7 * MINUTE));
    const run = atWait({ until: 'timestamp(payload.from) + duration("90m")' }, { from: '2030-01-01T10:00:00+02:00' });
    expect(run.doc.notBefore).toEqual(new Date('2030-01-01T09:30:00Z'));
  });

  it('fires at once, in the same transition, for an instant already past', () => {
    const run = atWait({ until: 'payload.shipAt' }, { shipAt: '2029-12-31T00:00:00Z' });
    expect(run.doc.steps[1]).toMatchObject({ state: 'Completed', result: { firedAt: new Date(run.now).toISOString() } });
    expect(dispatched(run)).toEqual(['ship/forward']);
    expect(run.doc.state).toBe('Processing');
  });

  it('fails the step permanently, naming it and the error, when the expression cannot be evaluated: the earlier steps are undone', () => {
    const run = atWait({ until: 'payload.shipAt' }, { sku: 'kettle' });
    expect(run.doc.steps[1]).toMatchObject({ state: 'Failed' });
    expect(run.doc.steps[1]!.error).toMatch(/^until of wait step cool-off failed: .*shipAt/);
    expect(run.doc.mode).toBe('compensate');
    expect(dispatched(run)).toEqual(['reserve/compensate']);
  });

  it('fails it with what it gave when the value is not an instant, stopping in Error with an alert under onPermanentFailure error', () => {
    const run = atWait({ until: 'payload.shipAt' }, { shipAt: 'next tuesday' }, { onPermanentFailure: 'error' });
    expect(run.doc.state).toBe('Error');
    expect(run.doc.reason).toBe('until of wait step cool-off failed: it gave the string "next tuesday", not an RFC 3339 instant such as 2030-01-31T12:00:00Z');
    expect(alerts(run.actions).map((a) => a.kind)).toEqual(['ProcessError']);
  });
});

describe('when an operator cancels during a wait', () => {
  it('undoes the earlier steps at once, sends nothing for the wait, and ends Canceled', () => {
    const run = atWait({ ms: 60 * MINUTE });
    const { next } = run.apply({ type: 'cancel', by: 'op', reason: 'customer asked' });
    expect(next.notBefore).toEqual(new Date(run.now));

    run.apply({ type: 'claim' });
    expect(dispatched(run)).toEqual(['reserve/compensate']);
    run.reply(ok({}));
    expect(run.doc.state).toBe('Canceled');
    expect(run.doc.steps[0]!.state).toBe('Compensated');
    expect(run.doc.steps[2]!.state).toBe('NotStarted');
  });

  it('withdraws the wait when the undo begins: Compensated, finished then, its instant kept, never dispatched', () => {
    const run = atWait({ ms: 60 * MINUTE });
    const until = run.doc.steps[1]!.waitUntil;
    run.apply({ type: 'cancel', by: 'op' });
    run.now += 10;
    run.apply({ type: 'claim' });

    expect(run.doc.steps[1]).toMatchObject({ state: 'Compensated', finishedAt: new Date(run.now), waitUntil: until, dispatches: 0, error: null });
    // Its instant passing later wakes nothing: the process no longer sleeps until it.
    run.reply(ok({}));
    expect(run.doc.steps.map((s) => s.state)).toEqual(['Compensated', 'Compensated', 'NotStarted']);
  });
});
