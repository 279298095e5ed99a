import { QueueNames, SCHEMA_VERSION, type AgentReply, type ProcessDocument, type ProcessEventEntry } from '@sas/contracts';
import { REDIS_TOPOLOGIES } from '@sas/testkit';
import {
  forwardCallsAfterUndo,
  kindOf,
  repeatedDispatches,
  repeatedEffects,
  resultsNotFromTheirEffect,
  undoPairs,
  undosBeforeForward,
  undosBeforeForwardAnswered,
  unundoneEffects,
} from '../support/ledger-checks';
import { plainArrivals, withPlainRemote } from '../support/remote-arrivals';
import { SystemFixture } from '../support/system-fixture';
import { fastRoleEnv, steadyFulfilment } from '../support/test-workflows';
import { committedTransitions, doubleCommits, unloggedRevisions } from '../support/transition-log';

describe.each(REDIS_TOPOLOGIES)('when processes of the system crash (kill -9) (%s Redis)', (redisTopology) => {
  let fx: SystemFixture;
  let n = 0;
  const newIds = (count: number, tag: string): string[] => Array.from({ length: count }, () => `${tag}-${++n}`);

  beforeAll(async () => {
    fx = await SystemFixture.start(
      'crash-recovery',
      { schedulers: 2, supervisors: 2, agents: { inventory: 2, payment: 2, shipping: 2 } },
      // remote-sim `plain`: it refuses nothing on the engine's behalf (see docs/guarantees.md).
      withPlainRemote(fastRoleEnv()),
      { redisTopology },
    );
  });
  afterAll(() => fx?.stop());
  afterEach(async () => {
    await fx.remote('/admin/faults', { method: 'DELETE' });
  });

  async function expectOneEffectPerStep(ids: readonly string[]): Promise<void> {
    const ledger = (await fx.ledger()).filter((e) => ids.includes(e.orderId));
    expect(repeatedEffects(ledger)).toEqual([]);
    expect(repeatedDispatches(await plainArrivals(fx, ids))).toEqual([]);
    for (const id of ids) {
      expect(ledger.filter((e) => e.orderId === id).map((e) => e.operation).sort()).toEqual(['charge', 'create', 'reserve']);
    }
  }

  it('recovers a step whose agent was killed mid-call and completes every order', async () => {
    // The remote applies each charge at once but holds its answer, so the charges that arrived are
    // still in flight when the agents die, however slowly this machine gets to the kill (with a
    // mere latency, a loaded machine could let every charge be answered first: nothing to recover).
    await fx.setFaults('payment', { holdOperations: ['charge'] });
    const ids = newIds(12, 'agent-crash');
    await fx.submit(ids.map((id) => fx.order(id, { workflow: 'fast-fulfilment' })));
    await fx.stack.waitFor(
      async () => (await plainArrivals(fx, ids)).some((a) => a.service === 'payment' && a.operation === 'charge' && a.answeredAt === undefined),
      { timeoutMs: 20_000, description: 'a charge held at the remote, its agent waiting for the answer' },
    );
    // Kill every payment agent, so the steps they hold can only finish through recovery: their jobs
    // stay locked to the dead agents (15 s) far past the steps' complete-by (1.5 s).
    const victims = fx.system.byRole('agent-payment').filter((p) => p.running);
    await Promise.all(victims.map((v) => v.kill('SIGKILL')));
    // From now on charges are answered at once (a replay under the same key gives the effect already
    // applied); the held answers go to callers that are gone.
    await fx.setFaults('payment', {});
    await fx.remote('/admin/release/payment', { method: 'POST' });
    // The replacements start meanwhile: on a loaded machine a start takes seconds, longer than the
    // two complete-bys the recovered steps have left before their threshold.
    const replacements = Promise.all([fx.system.spawn('agent-payment'), fx.system.spawn('agent-payment')]);
    await replacements;
    await fx.waitForStates(ids, ['Processed'], 60_000);
    await expectOneEffectPerStep(ids);
    // The recovery is read from the history, written when each process finished: a step's failure
    // count is reset when the step completes, and with the replacements up a recovered charge
    // completes within milliseconds, too fast for a poll of failureCount to see it (it once missed).
    const recovered = await fx.db
      .collection<ProcessEventEntry>('process_events')
      .find({ orderId: { $in: ids } })
      .toArray()
      .then((events) => events.filter((e) => e.who.startsWith('supervisor')));
    expect(recovered.length).toBeGreaterThan(0);
    expect(recovered.every((e) => /complete-by passed/.test(e.why))).toBe(true);
  });

  it('finishes every order after a scheduler is killed mid-flight, and the restarted one rejoins', async () => {
    await fx.setFaults('inventory', { latencyMs: 200 });
    const ids = newIds(30, 'scheduler-crash');
    await fx.submit(ids.map((id) => fx.order(id, { workflow: 'fast-fulfilment' })));
    await fx.stack.waitFor(
      async () => (await fx.processes({ orderId: { $in: ids }, state: 'Processing', lockedBy: 'scheduler-1' })).length > 0,
      { timeoutMs: 20_000, description: 'scheduler-1 to hold a process' },
    );
    const [scheduler1] = fx.system.byRole('scheduler');
    await scheduler1!.kill('SIGKILL');
    await fx.waitForStates(ids, ['Processed'], 60_000);
    await expectOneEffectPerStep(ids);
    await scheduler1!.restart();
    await scheduler1!.waitForLine((l) => l.json?.['msg'] === 'scheduler ready' && l.run === 2, 20_000, 'restarted scheduler ready');
    const later = newIds(5, 'after-restart');
    await fx.submit(later.map((id) => fx.order(id, { workflow: 'fast-fulfilment' })));
    await fx.waitForStates(later, ['Processed'], 30_000);
  });

  it('applies no late reply of an earlier attempt of the step in flight, as a killed agent redelivered late would send', async () => {
    // The charge's answer is held (its effect applied), so the step stays in flight while a reply of
    // an earlier attempt of that very step arrives: state, mode and step match, only the attempt is stale.
    await fx.setFaults('payment', { holdOperations: ['charge'] });
    const [id] = newIds(1, 'stale-reply') as [string];
    await fx.submit([fx.order(id, { workflow: 'steady-fulfilment' })]);
    await fx.stack.waitFor(async () => (await plainArrivals(fx, [id])).find((a) => kindOf(a) === 'payment.charge'), {
      timeoutMs: 20_000,
      description: 'the charge to arrive and be held',
    });
    const [held] = await fx.processes({ orderId: id });
    const charge = held!.steps[held!.currentStep]!;
    const lateAgent = `late-agent-${id}`;
    const late: AgentReply = {
      schemaVersion: SCHEMA_VERSION,
      processId: held!._id,
      step: charge.name,
      stepIndex: held!.currentStep,
      mode: 'forward',
      attempt: held!.attempt - 1,
      agent: charge.agent,
      agentInstance: lateAgent,
      at: Date.now(),
      outcome: 'ok',
      result: { effectId: 'eff-from-a-late-reply' },
    };
    const replies = fx.queue(QueueNames.schedulerReplies);
    await replies.add('reply', late).finally(() => replies.close());
    // The charge is released only once a scheduler handled the late reply (ignored it, or applied it).
    await fx.stack.waitFor(() => fx.system.byRole('scheduler').some((s) => s.lines.some((l) => l.text.includes(lateAgent))), {
      timeoutMs: 20_000,
      description: 'a scheduler to handle the late reply',
    });
    await fx.remote('/admin/release/payment', { method: 'POST' });
    const docs = await fx.waitForStates([id], ['Processed'], 30_000);
    const ledger = (await fx.ledger()).filter((e) => e.orderId === id);
    expect(resultsNotFromTheirEffect(docs, ledger)).toEqual([]);
    await expectOneEffectPerStep([id]);
  });

  it('lets a standby supervisor take over the sweep when the lease holder is killed', async () => {
    const lease = await fx.stack.waitFor(
      () => fx.db.collection<{ _id: string; holder: string }>('leases').findOne({ _id: 'supervisor-sweep' }),
      { timeoutMs: 10_000, description: 'a supervisor to hold the sweep lease' },
    );
    const holder = fx.system.byRole('supervisor').find((p) => p.name === lease.holder);
    expect(holder).toBeDefined();
    await holder!.kill('SIGKILL');

    await fx.setFaults('payment', { hang: true });
    const [id] = newIds(1, 'supervisor-crash') as [string];
    await fx.submit([fx.order(id, { workflow: 'fast-fulfilment' })]);
    const recovered = await fx.stack.waitFor(
      async () => {
        const [doc] = await fx.processes({ orderId: id });
        return doc && doc.failureCount >= 1 ? doc : null;
      },
      { timeoutMs: 30_000, description: 'the standby supervisor to recover the hung step' },
    );
    await fx.remote('/admin/faults/payment', { method: 'DELETE' });
    await fx.waitForStates([id], ['Processed'], 30_000);
    // A finished process's history is delivered after its terminal commit (decision 62): wait for it, not only for Processed.
    const recoveries = await fx.stack.waitFor(
      async () => {
        const entries = await fx.db.collection<ProcessEventEntry>('process_events').find({ processId: recovered._id }).toArray();
        const found = entries.filter((e) => /complete-by passed/.test(e.why));
        return entries.some((e) => e.to === 'Processed') && found.length > 0 ? found : null;
      },
      { timeoutMs: 10_000, description: "the recovered process's history, with its recovery" },
    );
    expect(recoveries.length).toBeGreaterThan(0);
    expect(recoveries.every((e) => e.who !== lease.holder && e.who.startsWith('supervisor'))).toBe(true);
    await holder!.restart();
  });

  it('runs 300 orders through 2 schedulers, 2 supervisors and 2 replicas of each agent with faults: no double claim, no double effect, nothing left unfinished', async () => {
    for (const s of ['inventory', 'payment', 'shipping']) await fx.setFaults(s, { errorRate: 0.15, lostReplyRate: 0.05 });
    const ids = newIds(300, 'load');
    const refused = ids.filter((_, i) => i % 50 === 7);
    await fx.setFaults('shipping', { errorRate: 0.15, lostReplyRate: 0.05, permanentFailOrders: refused });
    await fx.submit(ids.map((id) => fx.order(id, { workflow: 'steady-fulfilment' })));
    const docs = await fx.waitForStates(ids, ['Processed', 'Compensated'], 240_000);
    const byState = (s: string): ProcessDocument[] => docs.filter((d) => d.state === s);
    // An order compensated although no remote refused it is shown with its history, to say why.
    const unexpected = byState('Compensated').filter((d) => !refused.includes(d.orderId));
    const events = fx.db.collection<ProcessEventEntry>('process_events');
    const histories = await Promise.all(
      unexpected.map(async (d) => ({ orderId: d.orderId, why: (await events.find({ processId: d._id }).sort({ at: 1 }).toArray()).map((e) => `${e.who}: ${e.why}`) })),
    );
    expect(histories).toEqual([]);
    expect(byState('Compensated').map((d) => d.orderId).sort()).toEqual([...refused].sort());
    expect(byState('Processed')).toHaveLength(ids.length - refused.length);

    const ledger = (await fx.ledger()).filter((e) => ids.includes(e.orderId));
    expect(repeatedEffects(ledger)).toEqual([]);
    const undoOf = undoPairs([steadyFulfilment]);
    expect(unundoneEffects(ledger, refused, undoOf)).toEqual([]);
    expect(undosBeforeForward(ledger, undoOf)).toEqual([]);
    // The same from what the remote saw arrive: no step and attempt sent twice, no undo ahead of its call.
    const arrivals = await plainArrivals(fx, ids);
    expect(repeatedDispatches(arrivals)).toEqual([]);
    expect(undosBeforeForwardAnswered(arrivals)).toEqual([]);
    expect(forwardCallsAfterUndo(arrivals)).toEqual([]);
    for (const d of byState('Processed')) {
      expect(ledger.filter((e) => e.orderId === d.orderId)).toHaveLength(3);
    }
    for (const d of byState('Compensated')) {
      expect(ledger.filter((e) => e.orderId === d.orderId).map((e) => e.operation).sort()).toEqual(['charge', 'refund', 'release', 'reserve']);
    }

    // No double claim. The store cannot show one (two winners would write the same revision, history
    // _id and job id, deduplicated on the way in); each process run's own commit lines can.
    const processIds = new Set(docs.map((d) => d._id));
    const writers = [...fx.system.byRole('scheduler'), ...fx.system.byRole('supervisor')];
    const commits = committedTransitions(writers.flatMap((w) => w.lines)).filter((c) => processIds.has(c.processId));
    expect(doubleCommits(commits)).toEqual([]);
    // Not vacuous: every revision of every order, from its first claim to its last, was seen.
    expect(commits.length).toBeGreaterThanOrEqual(ids.length * 4);
    expect(unloggedRevisions(commits, docs)).toEqual([]);
  });
});
