import type { ProcessDocument } from '@sas/contracts';
import { EngineHarness } from './test-support/engine-harness';
import { agentRequests, lastRequest } from './test-support/agent-requests';
import { okReply } from './test-support/ok-reply';

/** Counts the engine's reads of p-1. */
function countReads(h: EngineHarness): { reads: number } {
  const counter = { reads: 0 };
  const get = h.store.get.bind(h.store);
  h.store.get = (processId: string): Promise<ProcessDocument | null> => {
    counter.reads += 1;
    return get(processId);
  };
  return counter;
}

describe('ProcessEngine starting from the copy it committed last', () => {
  it('applies the reply to the step it dispatched without reading the process', async () => {
    const h = new EngineHarness();
    await h.submit();
    const engine = h.engine();
    await engine.apply('p-1', { type: 'claim' });
    const counter = countReads(h);

    const outcome = await engine.apply('p-1', { type: 'reply', reply: okReply(lastRequest(h.outbox), h.clock.t) });

    expect(counter.reads).toBe(0);
    expect(outcome).toMatchObject({ kind: 'applied', process: { currentStep: 1, revision: 2 } });
    expect(await h.doc()).toMatchObject({ currentStep: 1, revision: 2, attempt: 2 });
  });

  it('applies a reply its copy calls stale when the stored process says it is current', async () => {
    const h = new EngineHarness();
    await h.submit();
    const first = h.engine('scheduler-1');
    await first.apply('p-1', { type: 'claim' });
    // The step expires; the supervisor releases it and another scheduler claims it again, so the
    // current attempt is one scheduler-1's copy has never seen.
    await h.passCompleteBy();
    expect(await h.engine('supervisor-1').apply('p-1', { type: 'expire' })).toMatchObject({ kind: 'applied' });
    expect(await h.engine('scheduler-2').apply('p-1', { type: 'claim' })).toMatchObject({ kind: 'applied' });
    const current = lastRequest(h.outbox);
    expect(current.attempt).toBe(3);

    const outcome = await first.apply('p-1', { type: 'reply', reply: okReply(current, h.clock.t) });

    expect(outcome).toMatchObject({ kind: 'applied', process: { currentStep: 1 } });
    expect(await h.doc()).toMatchObject({ currentStep: 1, attempt: 4, lockedBy: 'scheduler-1' });
  });

  it('ignores a reply its copy accepts when another writer has moved the process on', async () => {
    const h = new EngineHarness();
    await h.submit();
    const first = h.engine('scheduler-1');
    await first.apply('p-1', { type: 'claim' });
    const request = lastRequest(h.outbox);
    await h.passCompleteBy();
    expect(await h.engine('supervisor-1').apply('p-1', { type: 'expire' })).toMatchObject({ kind: 'applied' });
    h.outbox.clear();

    const outcome = await first.apply('p-1', { type: 'reply', reply: okReply(request, h.clock.t) });

    expect(outcome).toEqual({ kind: 'ignored', reason: 'stale reply from inventory-1: process is Pending, not Processing' });
    expect(await h.doc()).toMatchObject({ state: 'Pending', attempt: 2, currentStep: 0 });
    expect(agentRequests(h.outbox)).toEqual([]);
  });

  it('claims a process its copy shows held, once it was released and is due again', async () => {
    const h = new EngineHarness();
    await h.submit();
    const first = h.engine('scheduler-1');
    await first.apply('p-1', { type: 'claim' });
    await h.passCompleteBy();
    expect(await h.engine('supervisor-1').apply('p-1', { type: 'expire' })).toMatchObject({ kind: 'applied' });
    h.clock.t = Math.max(h.clock.t, (await h.doc()).notBefore.getTime());

    expect(await first.apply('p-1', { type: 'claim' })).toMatchObject({ kind: 'applied' });
    expect(await h.doc()).toMatchObject({ state: 'Processing', attempt: 3, lockedBy: 'scheduler-1' });
  });
});
