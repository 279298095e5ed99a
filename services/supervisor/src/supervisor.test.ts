import { QueueNames, type Alert } from '@sas/contracts';
import { orderFulfilmentManualV1, orderFulfilmentV1 } from '@sas/workflow';
import { COMPLETE_BY_MS, SupervisorHarness, T0 } from './test-support/supervisor-harness';

describe('Supervisor recovering an expired process', () => {
  let h: SupervisorHarness;
  beforeEach(() => {
    h = new SupervisorHarness();
  });
  afterEach(() => h.closeAll());

  it('delivers an outbox that a crashed writer left behind, once it is older than the grace period', async () => {
    const held = await h.held();
    const owed = [{ kind: 'message' as const, id: 'p-1.1.0', queue: 'app.status', message: { status: 'Processing' } }];
    // As if the scheduler committed the claim and died before delivering: the outbox is still full.
    // completeBy is far ahead, so only the outbox sweep (not a recovery) can deliver it.
    await h.store.commit(
      { ...held, revision: held.revision + 1, outbox: owed, outboxSince: held.updatedAt, completeBy: new Date(T0 + 60_000) },
      held.revision,
    );
    const supervisor = h.supervisor('supervisor-a');
    const before = h.outbox.sent.length;
    expect(await supervisor.sweep()).toMatchObject({ delivered: 0 });
    h.clock.t += 5000;
    expect(await supervisor.sweep()).toMatchObject({ delivered: 1 });
    expect(h.outbox.sent.slice(before)).toEqual([
      { queue: 'app.status', message: { status: 'Processing' }, options: { jobId: 'p-1.1.0' } },
    ]);
    expect((await h.doc()).outbox).toEqual([]);
  });

  it('says in the reason that no live agent serves the expired step, reading the live agents once per sweep', async () => {
    await h.held();
    h.clock.t += COMPLETE_BY_MS;
    const reads: Date[] = [];
    const supervisor = h.supervisor('supervisor-a', undefined, async (now) => {
      reads.push(now);
      return { payment: { operations: ['charge', 'refund'], servesOtherOperations: false } };
    });
    expect(await supervisor.sweep()).toMatchObject({ recovered: 1 });
    const doc = await h.doc();
    expect(doc.reason).toMatch(/^reserve-inventory: complete-by passed; no live instance of agent 'inventory' is registered: start it, or fix the agent's name in the workflow$/);
    expect(reads).toHaveLength(1);
    // Nothing expired: no read.
    await supervisor.sweep();
    expect(reads).toHaveLength(1);
  });

  it('recovers as before, with the plain reason, when the live agents cannot be read', async () => {
    await h.held();
    h.clock.t += COMPLETE_BY_MS;
    const supervisor = h.supervisor('supervisor-a', undefined, () => Promise.reject(new Error('MongoDB is away')));
    expect(await supervisor.sweep()).toMatchObject({ recovered: 1 });
    expect((await h.doc()).reason).toMatch(/: complete-by passed$/);
  });

  it('skips a process whose workflow version is not deployed and still recovers the others', async () => {
    await h.held();
    const held = await h.doc();
    // The same held process, but from a workflow version this build does not have, expired earlier.
    await h.store.insert({ ...held, _id: 'p-poison', orderId: 'o-poison', workflowVersion: 99, completeBy: new Date(h.clock.t) });
    h.clock.t += COMPLETE_BY_MS;
    const report = await h.supervisor('supervisor-a').sweep();
    expect(report).toMatchObject({ leader: true, recovered: 1, skipped: 1 });
    expect(await h.doc()).toMatchObject({ state: 'Pending', failureCount: 1 });
    expect(await h.store.get('p-poison')).toMatchObject({ state: 'Processing', failureCount: 0 });
  });

  it('retries on the next sweep a process whose recovery failed once on a transient error', async () => {
    await h.held();
    h.clock.t += COMPLETE_BY_MS;
    const get = h.store.get.bind(h.store);
    let blips = 1;
    h.store.get = async (id) => {
      if (blips-- > 0) throw new Error('connection reset by MongoDB');
      return get(id);
    };
    const supervisor = h.supervisor('supervisor-a');
    expect(await supervisor.sweep()).toMatchObject({ leader: true, recovered: 0, skipped: 1 });
    expect(await h.doc()).toMatchObject({ state: 'Processing', failureCount: 0 });
    // Not skipped for the life of the instance: the next sweep recovers it, once.
    expect(await supervisor.sweep()).toMatchObject({ recovered: 1, skipped: 0 });
    expect(await h.doc()).toMatchObject({ state: 'Pending', failureCount: 1 });
    expect(await supervisor.sweep()).toMatchObject({ recovered: 0 });
    expect(supervisor.metrics()).toMatchObject({ recovered: 1, errors: 1 });
  });

  it('gives a process whose workflow version is still not deployed after 10 minutes up to an operator', async () => {
    await h.held();
    const held = await h.doc();
    await h.store.insert({ ...held, _id: 'p-poison', orderId: 'o-poison', workflowVersion: 99, completeBy: new Date(h.clock.t) });
    h.clock.t += 600_000;
    const supervisor = h.supervisor('supervisor-a');
    await supervisor.sweep();
    expect(await h.store.get('p-poison')).toMatchObject({ state: 'Error', reason: expect.stringContaining('cannot be handled: Workflow order-fulfilment v99') });
    expect(supervisor.metrics()).toMatchObject({ quarantined: 1 });
    // The alert and the Failed status it owes are delivered by the outbox sweep after its grace.
    h.clock.t += 5000;
    await supervisor.sweep();
    expect(h.outbox.messagesTo(QueueNames.alerts)).toEqual([expect.objectContaining({ kind: 'ProcessError', processId: 'p-poison' })]);
    expect(h.outbox.messagesTo('app.status')).toContainEqual(expect.objectContaining({ status: 'Failed', processId: 'p-poison' }));
  });

  it('below the threshold releases it for another attempt with a wake-up and no alert', async () => {
    await h.held();
    h.clock.t += COMPLETE_BY_MS;
    await h.supervisor('supervisor-a').sweep();

    expect(await h.doc()).toMatchObject({
      state: 'Pending',
      mode: 'forward',
      failureCount: 1,
      reason: 'reserve-inventory: complete-by passed',
    });
    expect(h.outbox.messagesTo(QueueNames.schedulerReady)).toEqual([
      { schemaVersion: 1, processId: 'p-1', reason: 'released' },
    ]);
    expect(h.outbox.messagesTo(QueueNames.alerts)).toEqual([]);
  });

  it('at the threshold of an error-policy workflow puts it in Error and alerts an operator', async () => {
    const supervisor = h.supervisor('supervisor-a');
    await h.held(orderFulfilmentManualV1);
    for (let i = 1; i <= orderFulfilmentManualV1.failureThreshold; i++) {
      if (i > 1) await h.claim();
      h.clock.t += COMPLETE_BY_MS;
      expect(await supervisor.sweep()).toMatchObject({ recovered: 1 });
    }

    expect(await h.doc()).toMatchObject({ state: 'Error', failureCount: 3, lockedBy: null });
    const alerts = h.outbox.messagesTo(QueueNames.alerts) as Alert[];
    expect(alerts).toEqual([
      expect.objectContaining({
        kind: 'ThresholdReached',
        processId: 'p-1',
        failureCount: 3,
        reason: expect.stringContaining('process is in Error: resubmit or cancel it'),
      }),
    ]);
    expect(supervisor.metrics()).toMatchObject({ recovered: 3 });
  });

  it('at the threshold of a compensate-policy workflow alerts and hands the undo to a scheduler', async () => {
    const supervisor = h.supervisor('supervisor-a');
    await h.held(orderFulfilmentV1);
    for (let i = 1; i <= orderFulfilmentV1.failureThreshold; i++) {
      if (i > 1) await h.claim();
      h.clock.t += COMPLETE_BY_MS;
      await supervisor.sweep();
    }

    expect(await h.doc()).toMatchObject({ state: 'Pending', mode: 'compensate', failureCount: 0 });
    expect(h.outbox.messagesTo(QueueNames.alerts)).toEqual([
      expect.objectContaining({
        kind: 'ThresholdReached',
        failureCount: 3,
        reason: expect.stringContaining('compensating'),
      }),
    ]);
    // The supervisor only decides; nothing goes to an agent from it.
    expect(
      h.outbox.sent
        .filter((s) => s.queue.startsWith('agent.'))
        .map((s) => (s.message as { attempt: number }).attempt),
    ).toEqual([1, 3, 5]);
  });
});
