import { QueueNames, type ProcessDocument } from '@sas/contracts';
import { FaultInjector } from '@sas/testkit';
import { WorkflowRegistry, builtInWorkflows, createProcess, orderFulfilmentManualV1, orderFulfilmentV1 } from '@sas/workflow';
import { outboxDue } from './outbox-due';
import { ProcessEngine } from './process-engine';
import { lastRequest } from './test-support/agent-requests';
import { EngineHarness } from './test-support/engine-harness';
import { okReply } from './test-support/ok-reply';

// Decision 62: a transition's history entry is committed in the outbox and stays there until the
// process finishes, whose last delivery records every entry in one insert; a transition that owes
// no message (an order asking for final status events only, in the middle of its steps) makes no
// delivery at all. Nothing is lost in between: ProcessStore.history reads owed entries from the document.

const registry = new WorkflowRegistry(builtInWorkflows);

/** p-1 asking for final status events only, Pending on its first step. */
async function submitFinalOnly(h: EngineHarness): Promise<void> {
  const doc = createProcess({ processId: 'p-1', orderId: 'order-p-1', payload: { sku: 'sku-1' }, replyTo: 'app.status', statusEvents: 'final', workflow: orderFulfilmentV1, now: h.clock.t });
  const inserted = await h.store.insert(doc);
  if (!inserted.ok) throw new Error(`could not insert p-1: ${inserted.reason}`);
}

/** An engine whose store and outbox calls are recorded by `faults`. */
function recordedEngine(h: EngineHarness, faults: FaultInjector, who = 'scheduler-1'): ProcessEngine {
  return new ProcessEngine({
    store: faults.wrap(h.store),
    outbox: faults.wrap(h.outbox),
    registry,
    clock: h.clock,
    who,
    replyQueue: QueueNames.schedulerReplies,
    logger: h.log.logger,
  });
}

const owedHistory = (doc: ProcessDocument): string[] => (doc.outbox ?? []).flatMap((e) => (e.kind === 'history' ? [`${e.entry.from}->${e.entry.to}`] : []));

describe('outboxDue', () => {
  const history = { kind: 'history' as const, id: 'p.1.h', entry: { processId: 'p', orderId: 'o', who: 's', at: new Date(0), from: null, to: 'Pending' as const, why: 'w', attempt: 0, step: null, deleteTime: null } };
  const message = { kind: 'message' as const, id: 'p.1.0', queue: 'app', message: {} };

  it('is due for a message, or for anything once the process finished; never for an empty outbox', () => {
    expect(outboxDue([history], null)).toBe(false);
    expect(outboxDue([history, message], null)).toBe(true);
    expect(outboxDue([history], new Date(0))).toBe(true);
    expect(outboxDue([], new Date(0))).toBe(false);
    expect(outboxDue(undefined, null)).toBe(false);
  });
});

describe('ProcessEngine with history that owes no message', () => {
  it('commits a middle transition in one write and keeps its history owed, readable, and out of the sweep', async () => {
    const h = new EngineHarness();
    await submitFinalOnly(h);
    const faults = new FaultInjector();
    const engine = recordedEngine(h, faults);

    await engine.apply('p-1', { type: 'claim' });
    expect(faults.calls.map((c) => c.method)).toEqual(['get', 'commit', 'send']);
    const claimed = await h.doc();
    expect(owedHistory(claimed)).toEqual(['Pending->Processing']);
    expect(claimed.outboxSince ?? null).toBeNull();
    expect(await h.store.findUndelivered(new Date(h.clock.t + 3_600_000), 0)).toEqual([]);
    expect((await h.store.history('p-1')).map((e) => `${e.from}->${e.to}`)).toEqual(['Pending->Processing']);
  });

  it('carries owed history through its own copy and through another writer, and records it all, once, when the process finishes', async () => {
    const h = new EngineHarness();
    await submitFinalOnly(h);
    const faults = new FaultInjector();
    const first = recordedEngine(h, faults, 'scheduler-1');
    const second = recordedEngine(h, faults, 'scheduler-2');

    await first.apply('p-1', { type: 'claim' });
    h.clock.t += 10;
    // From the copy first kept (no read): the claim's entry must still be in what it commits.
    await first.apply('p-1', { type: 'reply', reply: okReply(lastRequest(h.outbox), h.clock.t) });
    expect(owedHistory(await h.doc())).toEqual(['Pending->Processing', 'Processing->Processing']);
    h.clock.t += 10;
    // Another scheduler reads the document and carries the owed entries on.
    await second.apply('p-1', { type: 'reply', reply: okReply(lastRequest(h.outbox), h.clock.t) });
    expect(owedHistory(await h.doc())).toHaveLength(3);
    expect(faults.calls.filter((c) => c.method === 'appendEvents')).toEqual([]);

    h.clock.t += 10;
    const before = faults.calls.length;
    await second.apply('p-1', { type: 'reply', reply: okReply(lastRequest(h.outbox), h.clock.t) });
    const done = await h.doc();
    expect(done.state).toBe('Processed');
    expect(done.outbox).toEqual([]);
    // No insert before this one, and the outbox is empty now: the four entries went in one insert.
    expect(faults.calls.slice(before).filter((c) => c.method === 'appendEvents')).toHaveLength(1);
    const history = await h.store.history('p-1');
    expect(history.map((e) => `${e.from}->${e.to}`)).toEqual(['Pending->Processing', 'Processing->Processing', 'Processing->Processing', 'Processing->Processed']);
    // The finished process dates every entry, the ones that waited included.
    expect(history.every((e) => e.deleteTime !== null)).toBe(true);
    expect(h.outbox.to('app.status').map((s) => (s.message as { status: string }).status)).toEqual(['Processed']);
  });

  it('delivers the message a transition owes at once and keeps the history: the alert of a process going to Error', async () => {
    const h = new EngineHarness();
    const doc = createProcess({ processId: 'p-1', orderId: 'order-p-1', payload: {}, replyTo: 'app.status', statusEvents: 'final', workflow: orderFulfilmentManualV1, now: h.clock.t });
    await h.store.insert(doc);
    for (let i = 0; i < orderFulfilmentManualV1.failureThreshold; i++) {
      await h.engine().apply('p-1', { type: 'claim' });
      await h.passCompleteBy();
      await h.engine('supervisor-1').apply('p-1', { type: 'expire' });
      if (i < orderFulfilmentManualV1.failureThreshold - 1) expect((await h.doc()).outbox?.length).toBeGreaterThan(0);
    }
    const inError = await h.doc();
    expect(inError.state).toBe('Error');
    // The alert went; Error waits for an operator, so the history still waits in the document.
    expect(inError.outbox?.every((e) => e.kind === 'history')).toBe(true);
    expect(inError.outboxSince ?? null).toBeNull();
    // Every claim and every expiry, once each.
    expect((await h.store.history('p-1')).map((e) => `${e.from}->${e.to}`)).toEqual([
      ...Array.from({ length: orderFulfilmentManualV1.failureThreshold - 1 }, () => ['Pending->Processing', 'Processing->Pending']).flat(),
      'Pending->Processing',
      'Processing->Error',
    ]);
    expect(h.outbox.messagesTo(QueueNames.alerts)).toHaveLength(1);
  });
});
