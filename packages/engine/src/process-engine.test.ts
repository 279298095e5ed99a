import { QueueNames, type AgentReply, type Alert, type StatusEvent } from '@sas/contracts';
import { orderFulfilmentManualV1 } from '@sas/workflow';
import { EngineHarness, T0 } from './test-support/engine-harness';
import { lastRequest } from './test-support/agent-requests';
import { okReply } from './test-support/ok-reply';

const COMPLETE_BY_MS = 5000;

describe('ProcessEngine applying a claim', () => {
  it('commits the claim and dispatches the first step to its agent queue with the job id <processId>.<attempt>', async () => {
    const h = new EngineHarness();
    await h.submit();
    const outcome = await h.engine().apply('p-1', { type: 'claim' });

    expect(outcome).toMatchObject({
      kind: 'applied',
      process: { state: 'Processing', attempt: 1, lockedBy: 'scheduler-1' },
    });
    expect(await h.doc()).toMatchObject({
      state: 'Processing',
      attempt: 1,
      revision: 1,
      lockedBy: 'scheduler-1',
    });
    const dispatches = h.outbox.to('agent.inventory.requests');
    expect(dispatches).toHaveLength(1);
    expect(dispatches[0]?.options).toEqual({ jobId: 'p-1.1' });
    expect(dispatches[0]?.message).toMatchObject({
      processId: 'p-1',
      step: 'reserve-inventory',
      attempt: 1,
      completeBy: T0 + COMPLETE_BY_MS,
      replyTo: QueueNames.schedulerReplies,
    });
  });

  it('sends the Processing status to the application reply queue', async () => {
    const h = new EngineHarness();
    await h.submit();
    await h.engine().apply('p-1', { type: 'claim' });

    const statuses = h.outbox.to('app.status').map((s) => s.message as StatusEvent);
    expect(statuses).toEqual([
      { schemaVersion: 1, eventId: 'p-1.1.0', orderId: 'order-p-1', processId: 'p-1', status: 'Processing', at: T0 },
    ]);
    // Delivered from the outbox with a deterministic job id, so a second delivery is dropped.
    expect(h.outbox.to('app.status')[0]?.options).toEqual({ jobId: 'p-1.1.0' });
  });

  it('records one history entry per applied transition and none for an ignored input', async () => {
    const h = new EngineHarness();
    await h.submit();
    const engine = h.engine();
    await engine.apply('p-1', { type: 'claim' });
    const second = await engine.apply('p-1', { type: 'claim' });
    h.clock.t += 100;
    await engine.apply('p-1', { type: 'reply', reply: okReply(lastRequest(h.outbox), h.clock.t) });

    expect(second).toEqual({ kind: 'ignored', reason: 'not claimable: state is Processing' });
    const history = await h.store.history('p-1');
    expect(history.map((e) => [e.from, e.to, e.attempt, e.step, e.who])).toEqual([
      ['Pending', 'Processing', 1, 'reserve-inventory', 'scheduler-1'],
      ['Processing', 'Processing', 2, 'charge-payment', 'scheduler-1'],
    ]);
  });

  it('returns not-found for a process that is not in the store, and sends nothing', async () => {
    const h = new EngineHarness();
    expect(await h.engine().apply('missing', { type: 'claim' })).toEqual({ kind: 'not-found' });
    expect(h.outbox.sent).toEqual([]);
  });
});

describe('ProcessEngine performing the actions of a transition', () => {
  it('dispatches the next step with the new attempt as job id when a step completes', async () => {
    const h = new EngineHarness();
    await h.submit();
    const engine = h.engine();
    await engine.apply('p-1', { type: 'claim' });
    const request = lastRequest(h.outbox);
    h.outbox.clear();
    h.clock.t += 100;
    await engine.apply('p-1', { type: 'reply', reply: okReply(request, h.clock.t) });

    const dispatches = h.outbox.to('agent.payment.requests');
    expect(dispatches.map((d) => d.options)).toEqual([{ jobId: 'p-1.2' }]);
    expect(h.outbox.to('app.status').map((s) => (s.message as StatusEvent).status)).toEqual([
      'StepCompleted',
    ]);
  });

  it('sends a wake-up delayed until notBefore when the agent parks the step', async () => {
    const h = new EngineHarness();
    await h.submit();
    const engine = h.engine();
    await engine.apply('p-1', { type: 'claim' });
    const request = lastRequest(h.outbox);
    h.clock.t += 100;
    const parked: AgentReply = {
      ...okReply(request, h.clock.t),
      outcome: 'parked',
      retryAfterMs: 30_000,
      reason: 'circuit open',
    };
    await engine.apply('p-1', { type: 'reply', reply: parked });

    expect(await h.doc()).toMatchObject({
      state: 'Pending',
      notBefore: new Date(h.clock.t + 30_000),
      failureCount: 0,
    });
    expect(h.outbox.to(QueueNames.schedulerReady)).toEqual([
      {
        queue: QueueNames.schedulerReady,
        message: { schemaVersion: 1, processId: 'p-1', reason: 'notBefore reached' },
        options: { delayMs: 30_000 },
      },
    ]);
  });

  it('sends an immediate wake-up when a recovery releases the process for another attempt', async () => {
    const h = new EngineHarness();
    await h.submit();
    await h.engine().apply('p-1', { type: 'claim' });
    await h.passCompleteBy();
    await h.engine('supervisor-1').apply('p-1', { type: 'expire' });

    expect(h.outbox.to(QueueNames.schedulerReady)).toEqual([
      {
        queue: QueueNames.schedulerReady,
        message: { schemaVersion: 1, processId: 'p-1', reason: 'released' },
        options: {},
      },
    ]);
  });

  it('sends an alert to the alerts queue and logs it when a step reaches the failure threshold', async () => {
    const h = new EngineHarness();
    await h.submit(orderFulfilmentManualV1);
    for (let i = 0; i < orderFulfilmentManualV1.failureThreshold; i++) {
      await h.engine().apply('p-1', { type: 'claim' });
      await h.passCompleteBy();
      await h.engine('supervisor-1').apply('p-1', { type: 'expire' });
    }

    expect(await h.doc()).toMatchObject({ state: 'Error', failureCount: 3 });
    const alerts = h.outbox.to(QueueNames.alerts).map((s) => s.message as Alert);
    expect(alerts).toEqual([
      expect.objectContaining({
        kind: 'ThresholdReached',
        processId: 'p-1',
        step: 'reserve-inventory',
        failureCount: 3,
      }),
    ]);
    expect(h.log.lines).toContainEqual(
      expect.objectContaining({
        level: 40,
        msg: expect.stringMatching(/^ALERT ThresholdReached: reserve-inventory failed 3 times/),
      }),
    );
  });

  it('keeps the committed state and what it owes when sending fails, and delivers it once later', async () => {
    const h = new EngineHarness();
    await h.submit();
    h.outbox.failWith = new Error('redis is down');
    const outcome = await h.engine().apply('p-1', { type: 'claim' });

    expect(outcome.kind).toBe('applied');
    const released = await h.doc();
    // The dispatch never left, so the claim is released at once rather than held until complete-by,
    // and no failure is counted against the step.
    expect(released).toMatchObject({ state: 'Pending', attempt: 2, revision: 2, failureCount: 0, lockedBy: null });
    // Both transitions' history entries are readable; the outbox (Processing status included) stays owed.
    expect(await h.store.history('p-1')).toHaveLength(2);
    expect(released.outbox?.map((e) => e.id)).toEqual(['p-1.1.h', 'p-1.1.0', 'p-1.2.h']);
    expect(released.outboxSince).toEqual(new Date(T0));
    const errors = h.log.lines.filter((l) => l['level'] === 50);
    expect(errors.map((l) => l['msg'])).toEqual([
      'action not performed; recovery will cover it',
      'outbox not delivered yet; it stays in the process and will be delivered again',
      'action not performed; recovery will cover it',
      'outbox not delivered yet; it stays in the process and will be delivered again',
    ]);

    h.outbox.failWith = undefined;
    expect(await h.engine().deliverOutbox(released)).toBe(true);
    expect(await h.engine().deliverOutbox(released)).toBe(true);
    // The status went; the history of the unfinished process waits for it to finish (decision 62).
    expect(await h.doc()).toMatchObject({ outbox: released.outbox?.filter((e) => e.kind === 'history'), outboxSince: null });
    expect(await h.store.history('p-1')).toHaveLength(2);
    expect(h.outbox.to('app.status').map((s) => s.options)).toEqual([{ jobId: 'p-1.1.0' }, { jobId: 'p-1.1.0' }]);
  });
});
