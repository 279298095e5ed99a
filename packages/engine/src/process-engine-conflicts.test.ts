import { EngineHarness } from './test-support/engine-harness';
import { agentRequests, lastRequest } from './test-support/agent-requests';
import { okReply } from './test-support/ok-reply';

describe('ProcessEngine when another writer commits first', () => {
  it('re-reads and ignores a reply made stale by a concurrent recovery', async () => {
    let recoverFirst = false;
    const h: EngineHarness = new EngineHarness({
      beforeCommit: async () => {
        if (!recoverFirst) return;
        recoverFirst = false;
        // The supervisor recovers the process between the scheduler's read and its commit.
        const recovered = await h.engine('supervisor-1').apply('p-1', { type: 'expire' });
        if (recovered.kind !== 'applied')
          throw new Error(`recovery did not apply: ${JSON.stringify(recovered)}`);
      },
    });
    await h.submit();
    await h.engine().apply('p-1', { type: 'claim' });
    const request = lastRequest(h.outbox);
    await h.passCompleteBy();
    h.outbox.clear();
    recoverFirst = true;
    const outcome = await h
      .engine('scheduler-2')
      .apply('p-1', { type: 'reply', reply: okReply(request, h.clock.t) });

    expect(outcome).toEqual({
      kind: 'ignored',
      reason: 'stale reply from inventory-1: process is Pending, not Processing',
    });
    expect(await h.doc()).toMatchObject({ state: 'Pending', attempt: 2, failureCount: 1, currentStep: 0 });
    expect(agentRequests(h.outbox)).toEqual([]);
    expect((await h.store.history('p-1')).map((e) => e.who)).toEqual(['scheduler-1', 'supervisor-1']);
  });

  it('re-evaluates an input against the fresh document and applies it when it still holds', async () => {
    let bumps = 1;
    const h: EngineHarness = new EngineHarness({
      beforeCommit: async (next, expected) => {
        if (bumps === 0 || next.state !== 'Processing' || next.attempt !== 2) return;
        bumps -= 1;
        // A write that changes nothing the reply depends on, but does take the revision.
        const current = await h.doc();
        await h.store.commit({ ...current, revision: expected + 1 }, expected);
      },
    });
    await h.submit();
    await h.engine().apply('p-1', { type: 'claim' });
    const outcome = await h
      .engine()
      .apply('p-1', { type: 'reply', reply: okReply(lastRequest(h.outbox), h.clock.t) });

    expect(outcome).toMatchObject({ kind: 'applied', process: { currentStep: 1, attempt: 2, revision: 3 } });
    expect(await h.doc()).toMatchObject({ currentStep: 1, attempt: 2, revision: 3 });
    expect(h.outbox.to('agent.payment.requests')).toHaveLength(1);
  });

  it('does not take a look-alike write of another writer for its own when its commit answer is lost', async () => {
    let interfere = true;
    const h: EngineHarness = new EngineHarness({
      beforeCommit: async (next, expected) => {
        if (!interfere) return;
        interfere = false;
        // Another scheduler wins this revision with the same state, attempt, owner and time (one
        // millisecond, one lockedBy name), then this commit fails without taking effect.
        await h.store.commit({ ...next, writeId: 'another-writer', reason: 'written by another' }, expected);
        throw new Error('connection reset while committing');
      },
    });
    await h.submit();
    const outcome = await h.engine().apply('p-1', { type: 'claim' });

    expect(outcome).toEqual({ kind: 'ignored', reason: 'claimed by another scheduler' });
    expect(agentRequests(h.outbox)).toEqual([]);
    expect(await h.doc()).toMatchObject({ revision: 1, writeId: 'another-writer', reason: 'written by another' });
  });

  it('returns ignored when it loses a claim race, and sends nothing', async () => {
    const h = new EngineHarness();
    const loaded = await h.submit();
    const first = await h.engine('scheduler-1').applyTo(loaded, { type: 'claim' });
    const second = await h.engine('scheduler-2').applyTo(loaded, { type: 'claim' });

    expect(first.kind).toBe('applied');
    expect(second).toEqual({ kind: 'ignored', reason: 'claimed by another scheduler' });
    expect(await h.doc()).toMatchObject({ lockedBy: 'scheduler-1', attempt: 1 });
    expect(agentRequests(h.outbox)).toHaveLength(1);
  });

  it('returns contended when another writer wins every round', async () => {
    let rounds = 0;
    const h: EngineHarness = new EngineHarness({
      beforeCommit: async (next, expected) => {
        if (next.lockedBy !== 'scheduler-1' || next.attempt !== 2) return;
        rounds += 1;
        const current = await h.doc();
        await h.store.commit({ ...current, lockedBy: 'someone-else', revision: expected + 1 }, expected);
      },
    });
    await h.submit();
    await h.engine('scheduler-0').apply('p-1', { type: 'claim' });
    const request = lastRequest(h.outbox);
    const outcome = await h
      .engine('scheduler-1', 3)
      .apply('p-1', { type: 'reply', reply: okReply(request, h.clock.t) });

    expect(outcome).toEqual({ kind: 'contended' });
    expect(rounds).toBe(3);
    expect(h.outbox.to('agent.payment.requests')).toEqual([]);
  });
});
