import { QueueNames, type StatusEvent, type SubmissionMessage } from '@sas/contracts';
import { ProcessEngine } from '@sas/engine';
import { InMemoryProcessStore } from '@sas/store';
import { FAULT_TIMINGS, FaultInjector, ManualClock, numberedCalls, RecordingOutbox, type SentMessage } from '@sas/testkit';
import { WorkflowRegistry, builtInWorkflows } from '@sas/workflow';
import { pino } from 'pino';
import { SubmissionHandler, type DeadLetters, type SubmissionOutcome } from './submission-handler';

// "This call fails once" at every call the submission handler makes, then the consumer's own
// retry path (BullMQ redelivers a message whose handler threw) and the supervisor's delivery of
// owed outboxes. Helpers stay in the file: test code must not reach the package build.

const T0 = Date.UTC(2030, 0, 1);
const logger = pino({ level: 'silent' });
/** How often the consumer redelivers a message whose handler keeps throwing, in these tests. */
const DELIVERIES = 3;

class RecordingDeadLetters implements DeadLetters {
  readonly entries: Array<Parameters<DeadLetters['deadLetter']>[0]> = [];

  async deadLetter(input: Parameters<DeadLetters['deadLetter']>[0]): Promise<void> {
    this.entries.push(input);
  }
}

/** One submission service over an in-memory store, every dependency behind one fault injector. */
class World {
  readonly faults = new FaultInjector();
  readonly clock = new ManualClock(T0);
  readonly store = new InMemoryProcessStore();
  readonly outbox = new RecordingOutbox();
  readonly deadLetters = new RecordingDeadLetters();
  readonly handler: SubmissionHandler;
  readonly outcomes: SubmissionOutcome[] = [];
  private readonly registry = new WorkflowRegistry(builtInWorkflows);
  private ids = 0;

  constructor(afterwards = false) {
    this.handler = new SubmissionHandler({
      store: this.faults.wrap(this.store, { afterwards }),
      outbox: this.faults.wrap(this.outbox, { afterwards }),
      deadLetters: this.faults.wrap(this.deadLetters, { afterwards }),
      registry: this.registry,
      clock: this.clock,
      newId: () => `p-${++this.ids}`,
      logger,
    });
  }

  /** As the BullMQ consumer: a handler that throws gets the same message again. */
  async deliver(message: SubmissionMessage): Promise<void> {
    for (let delivery = 1; ; delivery++) {
      try {
        this.outcomes.push(await this.handler.handle(message));
        return;
      } catch (e) {
        if (delivery >= DELIVERIES) throw e;
      }
    }
  }

  /** The supervisor's sweep of owed outboxes, after its grace period, with the fault passed. */
  async settle(): Promise<void> {
    this.faults.heal();
    this.clock.t += 5000;
    const { store, outbox, registry, clock } = this;
    const engine = new ProcessEngine({ store, outbox, registry, clock, who: 'supervisor-1', replyQueue: QueueNames.schedulerReplies, logger });
    for (const doc of await store.findUndelivered(new Date(clock.t), 0)) await engine.deliverOutbox(doc);
  }

  statuses(): Array<{ key: string; event: StatusEvent }> {
    return this.outbox.to('app.status').map((s, i) => ({ key: eventKey(s, i), event: s.message as StatusEvent }));
  }
}

/**
 * What makes two status sends the same event for the application: its `eventId`, else the job id
 * the queue dedupes on. A send with neither is its own event.
 */
function eventKey(sent: SentMessage, index: number): string {
  const eventId = (sent.message as { eventId?: unknown }).eventId;
  if (typeof eventId === 'string') return `event:${eventId}`;
  return sent.options?.jobId !== undefined ? `job:${sent.options.jobId}` : `unkeyed:${index}`;
}

function order(overrides: Partial<SubmissionMessage> = {}): SubmissionMessage {
  return {
    schemaVersion: 1,
    orderId: 'order-1',
    workflow: 'order-fulfilment',
    payload: { sku: 'sku-1', quantity: 2 },
    replyTo: 'app.status',
    ...overrides,
  };
}

/** Every call a clean submission makes, in order: each one gets its own fault test below. */
/** Received goes out at once; the history entry waits in the document for the process to finish (decision 62). */
const SUBMIT_CALLS = ['insert', 'send', 'clearOutbox', 'send'];
/** Every call a submission for an unknown workflow makes. */
/** Its orderId is looked up first: a taken one is answered as the order holding it, or Duplicate. */
const REJECT_CALLS = ['getByOrderId', 'deadLetter', 'send'];

/** The invariants of one accepted order, whatever failed on the way. */
async function expectOneReceivedProcess(w: World): Promise<void> {
  const processes = w.store.list().filter((d) => d.orderId === 'order-1');
  expect(processes).toHaveLength(1);
  const process = processes[0]!;
  expect(process).toMatchObject({ state: 'Pending', payload: order().payload, outboxSince: null });
  expect((process.outbox ?? []).filter((e) => e.kind === 'message')).toEqual([]);

  const statuses = w.statuses();
  // Never Duplicate or Rejected for its own redelivered message.
  expect(statuses.map((s) => s.event.status).filter((s) => s !== 'Received')).toEqual([]);
  const received = new Map(statuses.map((s) => [s.key, s.event]));
  expect([...received.values()]).toEqual([expect.objectContaining({ status: 'Received', orderId: 'order-1', processId: process._id })]);
  // Every handler run that returned said the order was received, as the process it is.
  expect(w.outcomes).toEqual(w.outcomes.map(() => ({ kind: 'received', processId: process._id })));

  // A scheduler learns of it: a wake-up for it, or at least the schedulers' poll finds it.
  const woken = w.outbox.messagesTo(QueueNames.schedulerReady).some((m) => (m as { processId?: string }).processId === process._id);
  const claimable = (await w.store.findClaimable(new Date(w.clock.t), 0)).map((d) => d._id);
  expect(woken || claimable.includes(process._id)).toBe(true);

  // One submitted entry in the history.
  expect((await w.store.history(process._id)).map((e) => [e.from, e.to, e.who])).toEqual([[null, 'Pending', 'submission']]);
}

describe('SubmissionHandler when one call fails once', () => {
  it('makes exactly the calls the fault tables below cover (update them when this changes)', async () => {
    const w = new World();
    await w.deliver(order());
    expect(w.faults.calls.map((c) => c.method)).toEqual(SUBMIT_CALLS);
    await expectOneReceivedProcess(w);

    const rejected = new World();
    await rejected.deliver(order({ workflow: 'no-such-workflow' }));
    expect(rejected.faults.calls.map((c) => c.method)).toEqual(REJECT_CALLS);
  });

  describe.each(FAULT_TIMINGS)('a valid order, the call failing %s', (_kind, afterwards) => {
    it.each(numberedCalls(SUBMIT_CALLS))('call %i (%s): one process, one Received, never Duplicate', async (n) => {
      const w = new World(afterwards);
      w.faults.failOnce(n);
      await w.deliver(order());
      await w.settle();
      await expectOneReceivedProcess(w);
    });

    it.each(numberedCalls(SUBMIT_CALLS))('call %i (%s): a different submission with the same orderId still gets Duplicate', async (n) => {
      const w = new World(afterwards);
      w.faults.failOnce(n);
      await w.deliver(order());
      await w.settle();
      const [first] = w.store.list();
      w.outbox.clear();
      w.outcomes.length = 0;
      await w.deliver(order({ payload: { sku: 'sku-2', quantity: 1 } }));
      expect(w.outcomes).toEqual([{ kind: 'duplicate', processId: first?._id }]);
      expect(w.statuses().map((s) => s.event.status)).toEqual(['Duplicate']);
      expect(w.store.list()).toEqual([first]);
    });
  });

  describe.each(FAULT_TIMINGS)('an order for an unknown workflow, the call failing %s', (_kind, afterwards) => {
    it.each(numberedCalls(REJECT_CALLS))('call %i (%s): dead-lettered, one Rejected, no process', async (n) => {
      const w = new World(afterwards);
      w.faults.failOnce(n);
      await w.deliver(order({ workflow: 'no-such-workflow' }));
      expect(w.store.list()).toEqual([]);
      expect(w.deadLetters.entries.length).toBeGreaterThanOrEqual(1);
      const distinct = new Map(w.statuses().map((s) => [s.key, s.event.status]));
      expect([...distinct.values()]).toEqual(['Rejected']);
    });
  });

  it('answers a plain redelivery of the same message (at-least-once, no fault) as the first time', async () => {
    const w = new World();
    await w.deliver(order());
    await w.deliver(order());
    await expectOneReceivedProcess(w);
  });
});
