import { orderFulfilmentManualV1, orderFulfilmentV1 } from './order-fulfilment';
import { alerts, statuses } from './test-support/action-filters';
import { ProcessRun, secondStepInFlight } from './test-support/process-run';
import { DEFAULT_MAX_PARKED_MS, type WorkflowDefinition } from './workflow-definition';

const parked = { outcome: 'parked', retryAfterMs: 60_000, reason: 'circuit open for payment' } as const;

/** Parks the charge step again and again, a minute apart, until `untilMs` after the first park. */
function parkFor(run: ProcessRun, untilMs: number): void {
  const first = run.now;
  run.reply(parked);
  while (run.now - first < untilMs) {
    run.now = run.doc.notBefore.getTime();
    run.apply({ type: 'claim' });
    if (run.now - first >= untilMs) return;
    run.reply(parked);
  }
}

describe('when a remote stays down and its steps keep parking', () => {
  it('holds the step without counting failures while under the bound', () => {
    const run = secondStepInFlight();
    parkFor(run, DEFAULT_MAX_PARKED_MS - 120_000);
    run.reply(parked);
    expect(run.doc).toMatchObject({ state: 'Pending', failureCount: 0, mode: 'forward' });
    expect(run.doc.steps[1]?.parkedSince).toEqual(new Date(run.doc.createdAt.getTime()));
  });

  it('applies the threshold policy with an alert once the step has been parked for the bound', () => {
    const run = secondStepInFlight();
    parkFor(run, DEFAULT_MAX_PARKED_MS);
    const { next, actions } = run.reply(parked);
    expect(next).toMatchObject({ state: 'Pending', mode: 'compensate' });
    expect(alerts(actions)).toEqual([
      expect.objectContaining({ kind: 'ThresholdReached', reason: expect.stringContaining('charge-payment stayed parked for') }),
    ]);
    expect(statuses(actions)).toEqual(['Failed']);
    expect(next.steps[1]?.parkedSince).toBeNull();
  });

  it('stops in Error for a workflow whose policy is error', () => {
    const run = secondStepInFlight(orderFulfilmentManualV1);
    parkFor(run, DEFAULT_MAX_PARKED_MS);
    const { next } = run.reply(parked);
    expect(next.state).toBe('Error');
    expect(next.reason).toContain('stayed parked for');
  });

  it('uses the bound the workflow sets', () => {
    const workflow: WorkflowDefinition = { ...orderFulfilmentV1, parking: { maxParkedMs: 120_000 } };
    const run = secondStepInFlight(workflow);
    parkFor(run, 120_000);
    expect(run.reply(parked).next.mode).toBe('compensate');
  });

  it('starts a fresh window when the step completes and the next one parks', () => {
    const run = secondStepInFlight();
    parkFor(run, DEFAULT_MAX_PARKED_MS - 60_000);
    run.reply({ outcome: 'ok', result: {} });
    run.now += 1;
    const { next } = run.reply(parked);
    expect(next).toMatchObject({ state: 'Pending', mode: 'forward' });
    expect(next.steps[2]?.parkedSince).toEqual(new Date(run.now));
  });
});

describe('when a dispatch could not be sent', () => {
  it('releases the process for another claim without counting a failure', () => {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    const attempt = run.doc.attempt;
    const { next, actions } = run.apply({ type: 'undelivered', attempt, error: 'Redis unreachable' });
    expect(next).toMatchObject({ state: 'Pending', failureCount: 0, lockedBy: null, completeBy: null, attempt: attempt + 1 });
    expect(actions).toEqual([{ type: 'wake', atMs: run.now + 1000 }]);
    run.now += 1000;
    const again = run.apply({ type: 'claim' });
    // The application was told Processing once, not on every dispatch.
    expect(statuses(again.actions)).toEqual([]);
  });

  it('changes nothing once the attempt is no longer held by this scheduler', () => {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    const attempt = run.doc.attempt;
    expect(run.try({ type: 'undelivered', attempt, error: 'x' }, 'scheduler-2').applied).toBe(false);
    run.reply({ outcome: 'ok', result: {} });
    expect(run.try({ type: 'undelivered', attempt, error: 'x' }).applied).toBe(false);
  });
});
