import { orderFulfilmentManualV1, orderFulfilmentV1 } from './order-fulfilment';
import { statuses } from './test-support/action-filters';
import { expectIgnored } from './test-support/expect-ignored';
import { ProcessRun, secondStepInFlight } from './test-support/process-run';
import { ok, refused } from './test-support/reply-body';
import type { WorkflowDefinition } from './workflow-definition';

describe('when an operator resubmits a process stopped by a permanent refusal', () => {
  const strict: WorkflowDefinition = { ...orderFulfilmentV1, name: 'strict', onPermanentFailure: 'error' };

  it('restarts the failed step with a clean count and the process completes', () => {
    const run = secondStepInFlight(strict);
    const failed = run.request();
    run.reply(refused('card declined'));
    run.now += 3_600_000;
    const { next, actions } = run.apply({ type: 'resubmit', by: 'op' }, 'dashboard-1');
    expect(next).toMatchObject({
      state: 'Pending',
      mode: 'forward',
      failureCount: 0,
      waits: 0,
      reason: 'resubmitted by op',
    });
    expect(next.notBefore).toEqual(new Date(run.now));
    expect(next.steps[1]).toMatchObject({ state: 'NotStarted', error: null, finishedAt: null });
    expect(actions).toEqual([{ type: 'wake', atMs: run.now }]);
    const claimed = run.apply({ type: 'claim' });
    expect(statuses(claimed.actions)).toEqual([]);
    expect(run.request()).toEqual({ ...failed, attempt: failed.attempt + 2, completeBy: run.now + 5000 });
    run.reply(ok());
    const done = run.reply(ok());
    expect(done.next.state).toBe('Processed');
    expect(statuses(done.actions)).toEqual(['StepCompleted', 'Processed']);
  });
});

describe('when an operator resubmits a process stopped at the threshold', () => {
  it('retries the in-doubt step with fresh counts and the process completes', () => {
    const run = new ProcessRun(orderFulfilmentManualV1);
    run.apply({ type: 'claim' });
    for (let i = 0; i < 3; i++) {
      if (i > 0) run.apply({ type: 'claim' });
      run.expire();
    }
    expect(run.doc).toMatchObject({ state: 'Error', failureCount: 3 });
    const { next } = run.apply({ type: 'resubmit', by: 'op' });
    expect(next).toMatchObject({ state: 'Pending', failureCount: 0, deleteTime: null });
    expect(next.steps[0]?.state).toBe('Running');
    run.apply({ type: 'claim' });
    expect(run.request()).toMatchObject({
      step: 'reserve-inventory',
      idempotencyKey: 'p-1/reserve-inventory',
    });
    run.reply(ok());
    run.reply(ok());
    expect(run.reply(ok()).next.state).toBe('Processed');
  });
});

describe('when an operator resubmits a process that is not in Error', () => {
  it('refuses and names the state it is in', () => {
    const run = new ProcessRun();
    expectIgnored(
      run,
      { type: 'resubmit', by: 'op' },
      'only Error processes can be resubmitted; this one is Pending',
    );
    run.apply({ type: 'claim' });
    expectIgnored(
      run,
      { type: 'resubmit', by: 'op' },
      'only Error processes can be resubmitted; this one is Processing',
    );
  });
});
