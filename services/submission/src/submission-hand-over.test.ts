import { QueueNames, type ProcessDocument, type StatusEvent, type SubmissionMessage } from '@sas/contracts';
import { ProcessEngine } from '@sas/engine';
import { InMemoryProcessStore } from '@sas/store';
import { ManualClock, RecordingOutbox } from '@sas/testkit';
import { WorkflowRegistry, builtInWorkflows } from '@sas/workflow';
import { pino } from 'pino';
import { SubmissionHandler } from './submission-handler';

// --- harness (kept in the test file on purpose: test helpers must not reach the package build) ---

const T0 = Date.UTC(2030, 0, 1);
const logger = pino({ level: 'silent' });

/** The in-memory store, counting what the submission and the scheduler beside it ask of it. */
class CountingStore extends InMemoryProcessStore {
  reads = 0;
  clears = 0;
  override async get(processId: string): Promise<ProcessDocument | null> {
    this.reads += 1;
    return super.get(processId);
  }
  override async clearOutbox(...args: Parameters<InMemoryProcessStore['clearOutbox']>): Promise<void> {
    this.clears += 1;
    return super.clearOutbox(...args);
  }
}

/**
 * A submission handler and a scheduler's engine on one store, as `sas up`'s shared core hosts them:
 * the handler hands each new process to `claimHere`, which by default claims it through the engine.
 */
class Harness {
  readonly clock = new ManualClock(T0);
  readonly outbox = new RecordingOutbox();
  readonly store = new CountingStore();
  readonly registry = new WorkflowRegistry(builtInWorkflows);
  readonly engine = new ProcessEngine({
    store: this.store,
    outbox: this.outbox,
    registry: this.registry,
    clock: this.clock,
    who: 'scheduler-core',
    replyQueue: QueueNames.schedulerReplies,
    logger,
  });
  /** What the scheduler beside the submission does with a handed-over copy. */
  claimHere: (copy: ProcessDocument) => Promise<boolean> = async (copy) => (await this.engine.applyFromCopy(copy, { type: 'claim' })).kind === 'applied';
  readonly handler = new SubmissionHandler({
    store: this.store,
    outbox: this.outbox,
    deadLetters: { deadLetter: async () => undefined },
    registry: this.registry,
    clock: this.clock,
    newId: () => 'p-1',
    logger,
    claimHere: (copy) => this.claimHere(copy),
  });

  stored(): ProcessDocument {
    const doc = this.store.list()[0];
    if (!doc) throw new Error('no process stored');
    return doc;
  }

  statuses(): string[] {
    return this.outbox.messagesTo('app.status').map((m) => (m as StatusEvent).status);
  }
}

function order(overrides: Partial<SubmissionMessage> = {}): SubmissionMessage {
  return { schemaVersion: 1, orderId: 'order-1', workflow: 'order-fulfilment', payload: { sku: 'sku-1', quantity: 2 }, replyTo: 'app.status', statusEvents: 'final', ...overrides };
}

const owedMessages = (doc: ProcessDocument): number => (doc.outbox ?? []).filter((e) => e.kind === 'message').length;

// --- tests ---

describe('SubmissionHandler handing a new process to the scheduler beside it (decision 128)', () => {
  it('sends Received, and the claim committed from the copy dispatches the first step and empties the outbox: no wake-up job, no read, no separate clear', async () => {
    const h = new Harness();
    expect(await h.handler.handle(order())).toEqual({ kind: 'received', processId: 'p-1' });

    expect(h.statuses()).toEqual(['Received']);
    expect(h.outbox.to(QueueNames.schedulerReady)).toEqual([]);
    expect(h.outbox.to('agent.inventory.requests')).toHaveLength(1);
    expect(h.stored()).toMatchObject({ state: 'Processing', lockedBy: 'scheduler-core', revision: 1, outboxSince: null });
    expect(owedMessages(h.stored())).toBe(0);
    expect([h.store.reads, h.store.clears]).toEqual([0, 0]);
    // The history of the submission and the claim both wait in the document, as without a hand-over.
    expect((await h.store.history('p-1')).map((e) => e.to)).toEqual(['Pending', 'Processing']);
  });

  it('falls back to clearing the outbox and a wake-up job when the scheduler declines (closing, or its bus is down)', async () => {
    const h = new Harness();
    h.claimHere = async () => false;
    await h.handler.handle(order());

    expect(h.statuses()).toEqual(['Received']);
    expect(h.outbox.messagesTo(QueueNames.schedulerReady)).toEqual([{ schemaVersion: 1, processId: 'p-1', reason: 'submitted' }]);
    expect(h.stored()).toMatchObject({ state: 'Pending', outboxSince: null });
    expect(owedMessages(h.stored())).toBe(0);
  });

  it('falls back the same way when the claim throws (a store error), and never loses the order', async () => {
    const h = new Harness();
    h.claimHere = async () => {
      throw new Error('store unreachable');
    };
    expect(await h.handler.handle(order())).toEqual({ kind: 'received', processId: 'p-1' });

    expect(h.outbox.to(QueueNames.schedulerReady)).toHaveLength(1);
    expect(h.stored()).toMatchObject({ state: 'Pending' });
    expect(owedMessages(h.stored())).toBe(0);
  });

  it('keeps Received owed, and hands nothing over, when it could not be sent', async () => {
    const h = new Harness();
    let handed = 0;
    h.claimHere = async () => {
      handed += 1;
      return true;
    };
    h.outbox.failWith = new Error('Redis is down');
    // The wake-up cannot be sent either: the submission job fails and BullMQ delivers it again.
    await expect(h.handler.handle(order())).rejects.toThrow('Redis is down');

    expect(handed).toBe(0);
    expect(owedMessages(h.stored())).toBe(1);
    expect(h.stored().outboxSince).not.toBeNull();
  });

  it('re-reads a copy another writer has moved past, and the claim then delivers the Received the store still owes', async () => {
    const h = new Harness();
    // Between the insert and the hand-over, a scheduler elsewhere claimed the process from the store
    // (which still owed Received), and a reply came back: the copy handed over is stale.
    h.claimHere = async (copy) => {
      const elsewhere = new ProcessEngine({ store: h.store, outbox: h.outbox, registry: h.registry, clock: h.clock, who: 'scheduler-2', replyQueue: QueueNames.schedulerReplies, logger });
      await elsewhere.apply(copy._id, { type: 'claim' });
      return (await h.engine.applyFromCopy(copy, { type: 'claim' })).kind === 'applied';
    };
    await h.handler.handle(order());

    expect(h.stored()).toMatchObject({ state: 'Processing', lockedBy: 'scheduler-2', revision: 1 });
    // Once by the submission, once more (same event id) by the other scheduler's delivery: at least once, never lost.
    expect(new Set(h.outbox.messagesTo('app.status').map((m) => (m as StatusEvent).eventId))).toEqual(new Set(['p-1.0.0']));
    expect(owedMessages(h.stored())).toBe(0);
    // The stale copy was not committed: one dispatch of the first step, by scheduler-2.
    expect(h.outbox.to('agent.inventory.requests')).toHaveLength(1);
    expect(h.outbox.to(QueueNames.schedulerReady)).toHaveLength(1);
  });

  it('hands over an order without replyTo as inserted (it owes no message)', async () => {
    const h = new Harness();
    await h.handler.handle(order({ replyTo: undefined }));

    expect(h.outbox.sent.map((s) => s.queue)).toEqual(['agent.inventory.requests']);
    expect(h.stored()).toMatchObject({ state: 'Processing' });
  });
});
