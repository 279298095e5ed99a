import { QueueNames, type StatusEvent, type SubmissionMessage } from '@sas/contracts';
import { InMemoryProcessStore } from '@sas/store';
import { ManualClock, RecordingOutbox } from '@sas/testkit';
import { WorkflowRegistry, builtInWorkflows, defineWorkflow } from '@sas/workflow';
import { pino } from 'pino';
import { SubmissionHandler, type DeadLetters } from './submission-handler';

// --- harness (kept in the test file on purpose: test helpers must not reach the package build) ---

const T0 = Date.UTC(2030, 0, 1);
const logger = pino({ level: 'silent' });

class RecordingDeadLetters implements DeadLetters {
  readonly entries: Array<Parameters<DeadLetters['deadLetter']>[0]> = [];

  async deadLetter(input: Parameters<DeadLetters['deadLetter']>[0]): Promise<void> {
    this.entries.push(input);
  }
}

/** A built-in workflow's steps with an input schema, as a deployment would publish it. */
const checkedFulfilment = defineWorkflow({
  ...builtInWorkflows[0]!,
  name: 'checked-order',
  inputSchema: {
    type: 'object',
    required: ['sku', 'quantity'],
    properties: { sku: { type: 'string', minLength: 1 }, quantity: { type: 'integer', minimum: 1 } },
  },
});

class Harness {
  readonly clock = new ManualClock(T0);
  readonly outbox = new RecordingOutbox();
  readonly deadLetters = new RecordingDeadLetters();
  readonly store = new InMemoryProcessStore();
  private ids = 0;
  readonly handler = this.handlerOn(new WorkflowRegistry([...builtInWorkflows, checkedFulfilment]));

  /** A handler on this harness's store and queues, running `registry`'s workflows (another deploy). */
  handlerOn(registry: WorkflowRegistry): SubmissionHandler {
    return new SubmissionHandler({
      store: this.store,
      outbox: this.outbox,
      deadLetters: this.deadLetters,
      registry,
      clock: this.clock,
      newId: () => `p-${++this.ids}`,
      logger,
    });
  }
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

// --- tests ---

describe('SubmissionHandler', () => {
  it('inserts one Pending process carrying the order, answers Received and wakes a scheduler', async () => {
    const h = new Harness();
    const outcome = await h.handler.handle(order());

    expect(outcome).toEqual({ kind: 'received', processId: 'p-1' });
    const stored = h.store.list();
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      _id: 'p-1',
      orderId: 'order-1',
      workflow: 'order-fulfilment',
      workflowVersion: 1,
      payload: { sku: 'sku-1', quantity: 2 },
      state: 'Pending',
      attempt: 0,
      revision: 0,
      replyTo: 'app.status',
      notBefore: new Date(T0),
    });
    expect(h.outbox.sent).toEqual([
      {
        queue: 'app.status',
        message: { schemaVersion: 1, eventId: 'p-1.0.0', orderId: 'order-1', processId: 'p-1', status: 'Received', at: T0 },
        // Delivered from the process's outbox, with a job id that makes a second delivery a no-op.
        options: { jobId: 'p-1.0.0' },
      },
      {
        queue: QueueNames.schedulerReady,
        message: { schemaVersion: 1, processId: 'p-1', reason: 'submitted' },
        options: undefined,
      },
    ]);
    expect(await h.store.history('p-1')).toEqual([
      expect.objectContaining({
        from: null,
        to: 'Pending',
        who: 'submission',
        why: 'submitted (order-fulfilment v1)',
      }),
    ]);
  });

  it('stores the status events the order asks for, and still answers Received to an order asking for final ones only', async () => {
    const h = new Harness();
    await h.handler.handle(order({ statusEvents: 'final' }));
    await h.handler.handle(order({ orderId: 'order-2' }));

    expect(h.store.list().map((d) => [d.orderId, d.statusEvents])).toEqual([
      ['order-1', 'final'],
      ['order-2', undefined],
    ]);
    expect(h.outbox.sent.filter((s) => s.queue === 'app.status').map((s) => (s.message as StatusEvent).status)).toEqual(['Received', 'Received']);
  });

  it('still wakes a scheduler when the order has no replyTo', async () => {
    const h = new Harness();
    await h.handler.handle(order({ replyTo: undefined }));

    expect(h.outbox.sent.map((s) => s.queue)).toEqual([QueueNames.schedulerReady]);
    expect(h.store.list()[0]).toMatchObject({ replyTo: null });
  });

  it('answers Duplicate naming the existing process and inserts nothing for a repeated orderId', async () => {
    const h = new Harness();
    await h.handler.handle(order());
    const outcome = await h.handler.handle(order({ payload: { sku: 'other' } }));

    expect(outcome).toEqual({ kind: 'duplicate', processId: 'p-1' });
    expect(h.store.list().map((d) => [d._id, d.payload])).toEqual([['p-1', { sku: 'sku-1', quantity: 2 }]]);
    expect(h.outbox.sent.slice(2)).toEqual([
      {
        queue: 'app.status',
        message: {
          schemaVersion: 1,
          orderId: 'order-1',
          processId: 'p-1',
          status: 'Duplicate',
          reason: "orderId 'order-1' was already submitted (process p-1, Pending); nothing new was created",
          at: T0,
        },
        options: undefined,
      },
    ]);
    expect(await h.store.history('p-2')).toEqual([]);
  });

  it('dead-letters an order for an unknown workflow with the reason and answers Rejected', async () => {
    const h = new Harness();
    const message = order({ workflow: 'no-such-flow' });
    const outcome = await h.handler.handle(message);

    const reason = "unknown workflow 'no-such-flow'; known: order-fulfilment@1, order-fulfilment-manual@1, checked-order@1";
    expect(outcome).toEqual({ kind: 'rejected', reason });
    expect(h.deadLetters.entries).toEqual([
      { queue: QueueNames.submission, reason, issues: [], original: message },
    ]);
    const eventId = expect.stringMatching(/^rejected\.[0-9a-f]{40}$/) as unknown as string;
    expect(h.outbox.sent).toEqual([
      {
        queue: 'app.status',
        message: { schemaVersion: 1, eventId, orderId: 'order-1', status: 'Rejected', reason, at: T0 },
        options: { jobId: eventId },
      },
    ]);
    expect(h.store.list()).toEqual([]);
    // A redelivery is rejected under the same id, so the application sees one Rejected.
    await h.handler.handle(message);
    const ids = h.outbox.sent.map((s) => s.options?.jobId);
    expect(ids[1]).toBe(ids[0]);
  });

  it('answers two different orders rejected for the same reason each with its own Rejected', async () => {
    const h = new Harness();
    // Same workflow, payload and replyTo: only the orderId differs, as with one application's
    // orders for a workflow that is not deployed.
    await h.handler.handle(order({ orderId: 'order-a', workflow: 'no-such-flow' }));
    await h.handler.handle(order({ orderId: 'order-b', workflow: 'no-such-flow' }));
    await h.handler.handle(order({ orderId: 'order-a', workflow: 'no-such-flow' }));

    const sent = h.outbox.to('app.status').map((s) => ({ orderId: (s.message as { orderId: string }).orderId, jobId: s.options?.jobId }));
    expect(sent.map((s) => s.orderId)).toEqual(['order-a', 'order-b', 'order-a']);
    // order-b's answer is not a repeat of order-a's; order-a's redelivery is.
    expect(sent[1]?.jobId).not.toBe(sent[0]?.jobId);
    expect(sent[2]?.jobId).toBe(sent[0]?.jobId);
  });

  it('answers a redelivery of the same submission as the first time, never Duplicate', async () => {
    const h = new Harness();
    const first = await h.handler.handle(order());
    h.clock.t += 60_000;
    const again = await h.handler.handle(order());

    expect(again).toEqual(first);
    expect(h.store.list()).toHaveLength(1);
    const statuses = h.outbox.to('app.status');
    expect(statuses.map((s) => (s.message as { status: string }).status)).toEqual(['Received', 'Received']);
    // The same event under the same id: a receiver (or BullMQ) drops the repeat.
    expect(statuses[1]).toEqual(statuses[0]);
    expect(h.outbox.to(QueueNames.schedulerReady)).toHaveLength(2);
  });

  it('rejects a payload that does not fit the input schema naming each field, dead-letters it and creates nothing', async () => {
    const h = new Harness();
    const message = order({ workflow: 'checked-order', payload: { sku: 'sku-1', quantity: '2' } });
    const outcome = await h.handler.handle(message);

    const reason = "payload does not match the input schema of workflow 'checked-order' v1: payload.quantity: must be integer";
    expect(outcome).toEqual({ kind: 'rejected', reason });
    expect(h.deadLetters.entries).toEqual([{ queue: QueueNames.submission, reason, issues: ['payload.quantity: must be integer'], original: message }]);
    expect(h.outbox.sent).toEqual([
      {
        queue: 'app.status',
        message: { schemaVersion: 1, eventId: expect.stringMatching(/^rejected\./), orderId: 'order-1', status: 'Rejected', reason, at: T0 },
        options: { jobId: expect.stringMatching(/^rejected\./) },
      },
    ]);
    expect(h.store.list()).toEqual([]);
    // The same order with a fitting payload is received on that version.
    await expect(h.handler.handle(order({ orderId: 'order-2', workflow: 'checked-order' }))).resolves.toEqual({ kind: 'received', processId: 'p-1' });
  });

  it('answers a redelivery accepted before a newer version with a schema was deployed as the first time', async () => {
    const h = new Harness();
    const message = order({ workflow: 'checked-order', payload: { sku: 'sku-1' } });
    // Accepted while only a version without a schema was deployed...
    const before = h.handlerOn(new WorkflowRegistry([{ ...checkedFulfilment, inputSchema: undefined }]));
    await expect(before.handle(message)).resolves.toEqual({ kind: 'received', processId: 'p-1' });
    // ...then redelivered after v2 (with a schema the payload misses) became the newest.
    const after = h.handlerOn(new WorkflowRegistry([{ ...checkedFulfilment, inputSchema: undefined }, { ...checkedFulfilment, version: 2 }]));
    await expect(after.handle(message)).resolves.toEqual({ kind: 'received', processId: 'p-1' });
    expect(h.deadLetters.entries).toEqual([]);
    // A different order with the same bad payload is still rejected.
    await expect(after.handle({ ...message, orderId: 'order-2' })).resolves.toMatchObject({ kind: 'rejected' });
  });

  describe('when a different submission the deployment refuses reuses a taken orderId', () => {
    it('answers Duplicate naming the process that holds the orderId and what was wrong, never the first order\'s Received', async () => {
      const h = new Harness();
      await expect(h.handler.handle(order({ workflow: 'checked-order' }))).resolves.toEqual({ kind: 'received', processId: 'p-1' });
      const outcome = await h.handler.handle(order({ workflow: 'checked-order', payload: { sku: 'sku-1', quantity: '2' } }));

      expect(outcome).toEqual({ kind: 'duplicate', processId: 'p-1' });
      expect(h.outbox.to('app.status').map((s) => s.message)).toEqual([
        expect.objectContaining({ status: 'Received', processId: 'p-1' }),
        {
          schemaVersion: 1,
          orderId: 'order-1',
          processId: 'p-1',
          status: 'Duplicate',
          reason:
            "orderId 'order-1' was already submitted (process p-1, Pending); nothing new was created; this submission is refused anyway: " +
            "payload does not match the input schema of workflow 'checked-order' v1: payload.quantity: must be integer",
          at: T0,
        },
      ]);
      // Nothing created, nothing dead-lettered: it is a duplicate, as a valid one would be.
      expect(h.store.list().map((d) => [d._id, d.payload])).toEqual([['p-1', { sku: 'sku-1', quantity: 2 }]]);
      expect(h.deadLetters.entries).toEqual([]);
      // No scheduler is woken for it.
      expect(h.outbox.to(QueueNames.schedulerReady)).toHaveLength(1);
    });

    it('answers Duplicate when the taken orderId comes with a workflow this deployment does not run', async () => {
      const h = new Harness();
      await h.handler.handle(order());
      await expect(h.handler.handle(order({ workflow: 'no-such-flow' }))).resolves.toEqual({ kind: 'duplicate', processId: 'p-1' });
      expect(h.outbox.to('app.status').map((s) => (s.message as StatusEvent).status)).toEqual(['Received', 'Duplicate']);
    });
  });

  it('rejects an order pinned to a workflow version that is not registered', async () => {
    const h = new Harness();
    const outcome = await h.handler.handle(order({ workflowVersion: 7 }));

    expect(outcome).toMatchObject({
      kind: 'rejected',
      reason: expect.stringMatching(/^unknown workflow 'order-fulfilment v7'/),
    });
    expect(h.deadLetters.entries).toHaveLength(1);
    expect(h.store.list()).toEqual([]);
  });
});

describe('SubmissionHandler.answerRejected', () => {
  it('sends Rejected with the reason and every issue to a readable replyTo', async () => {
    const h = new Harness();
    await h.handler.answerRejected(
      { orderId: 'order-9', replyTo: 'app.status', payload: 3 },
      'invalid message on submission',
      ['payload: Expected object, received number', 'workflow: Required'],
    );

    const sent = h.outbox.sent.map((s) => [s.queue, s.message as StatusEvent]);
    expect(sent).toEqual([
      [
        'app.status',
        {
          schemaVersion: 1,
          orderId: 'order-9',
          status: 'Rejected',
          reason:
            'invalid message on submission: payload: Expected object, received number; workflow: Required',
          at: T0,
        },
      ],
    ]);
  });

  it('leaves orderId out when the message has no readable one', async () => {
    const h = new Harness();
    await h.handler.answerRejected({ orderId: 42, replyTo: 'app.status' }, 'invalid message on submission', [
      'orderId: Expected string',
    ]);

    const [sent] = h.outbox.sent;
    expect(sent?.queue).toBe('app.status');
    expect((sent?.message as StatusEvent).orderId).toBeUndefined();
    expect(sent?.message).toMatchObject({
      status: 'Rejected',
      reason: 'invalid message on submission: orderId: Expected string',
    });
  });

  it.each([
    ['no replyTo', { orderId: 'order-9' }],
    ['a replyTo that is not a queue name', { orderId: 'order-9', replyTo: 'bad:queue' }],
    ['a message that is not an object', 'just text'],
    ['null', null],
  ])('sends nothing for %s', async (_label, raw) => {
    const h = new Harness();
    await h.handler.answerRejected(raw, 'invalid message on submission', ['(message): Expected object']);

    expect(h.outbox.sent).toEqual([]);
  });
});
