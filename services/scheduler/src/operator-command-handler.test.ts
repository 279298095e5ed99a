import { QueueNames, type OperatorCommand, type ProcessDocument } from '@sas/contracts';
import { ProcessEngine } from '@sas/engine';
import { InMemoryProcessStore, type InMemoryProcessStoreOptions } from '@sas/store';
import { ManualClock, RecordingOutbox } from '@sas/testkit';
import { WorkflowRegistry, builtInWorkflows, createProcess, orderFulfilmentManualV1 } from '@sas/workflow';
import { pino } from 'pino';
import { OperatorCommandHandler } from './operator-command-handler';

// --- harness (kept in the test file on purpose: test helpers must not reach the package build) ---

const T0 = Date.UTC(2030, 0, 1);
const logger = pino({ level: 'silent' });

class Harness {
  readonly clock = new ManualClock(T0);
  readonly outbox = new RecordingOutbox();
  readonly store: InMemoryProcessStore;
  readonly engine: ProcessEngine;
  readonly handler: OperatorCommandHandler;

  constructor(storeOptions: InMemoryProcessStoreOptions = {}) {
    this.store = new InMemoryProcessStore(storeOptions);
    this.engine = new ProcessEngine({
      store: this.store,
      outbox: this.outbox,
      registry: new WorkflowRegistry(builtInWorkflows),
      clock: this.clock,
      who: 'scheduler-1',
      replyQueue: QueueNames.schedulerReplies,
      logger,
    });
    this.handler = new OperatorCommandHandler(this.engine, this.outbox, logger);
  }

  async submit(processId = 'p-1'): Promise<void> {
    const doc = createProcess({
      processId,
      orderId: `order-${processId}`,
      payload: {},
      replyTo: null,
      workflow: orderFulfilmentManualV1,
      now: this.clock.t,
    });
    await this.store.insert(doc);
  }

  /** Drives the process to Error: its first step times out as often as the threshold allows. */
  async driveToError(processId = 'p-1'): Promise<void> {
    for (let i = 0; i < orderFulfilmentManualV1.failureThreshold; i++) {
      await this.engine.apply(processId, { type: 'claim' });
      this.clock.t = (await this.doc(processId)).completeBy?.getTime() ?? this.clock.t;
      await this.engine.apply(processId, { type: 'expire' });
    }
    const { state } = await this.doc(processId);
    if (state !== 'Error') throw new Error(`expected Error, got ${state}`);
  }

  async doc(processId = 'p-1'): Promise<ProcessDocument> {
    const doc = await this.store.get(processId);
    if (!doc) throw new Error(`process ${processId} is not in the store`);
    return doc;
  }
}

function command(overrides: Partial<OperatorCommand> = {}): OperatorCommand {
  return {
    schemaVersion: 1,
    command: 'resubmit',
    processId: 'p-1',
    by: 'alice',
    replyTo: 'ops.results',
    ...overrides,
  };
}

// --- tests ---

describe('OperatorCommandHandler', () => {
  it('resubmits an Error process: Pending again with a fresh failure count, a wake-up, and an ok answer', async () => {
    const h = new Harness();
    await h.submit();
    await h.driveToError();
    const before = await h.doc();
    const result = await h.handler.handle(command());

    expect(result).toEqual({
      schemaVersion: 1,
      processId: 'p-1',
      command: 'resubmit',
      ok: true,
      message: 'resubmitted by alice from reserve-inventory',
    });
    expect(await h.doc()).toMatchObject({
      state: 'Pending',
      failureCount: 0,
      attempt: before.attempt + 1,
      reason: 'resubmitted by alice',
    });
    expect(h.outbox.messagesTo(QueueNames.schedulerReady)).toContainEqual({
      schemaVersion: 1,
      processId: 'p-1',
      reason: 'released',
    });
    expect(h.outbox.messagesTo('ops.results')).toEqual([result]);
  });

  it('refuses to resubmit a process that is not in Error and changes nothing', async () => {
    const h = new Harness();
    await h.submit();
    await h.engine.apply('p-1', { type: 'claim' });
    const before = await h.doc();
    const result = await h.handler.handle(command());

    expect(result).toMatchObject({
      ok: false,
      message: 'only Error processes can be resubmitted; this one is Processing',
    });
    expect(await h.doc()).toEqual(before);
    expect(h.outbox.messagesTo('ops.results')).toEqual([result]);
  });

  it('answers that the process does not exist for an unknown id', async () => {
    const h = new Harness();
    const result = await h.handler.handle(command({ processId: 'nope', command: 'cancel' }));

    expect(result).toEqual({
      schemaVersion: 1,
      processId: 'nope',
      command: 'cancel',
      ok: false,
      message: 'no process nope (wrong id, or removed after its retention)',
    });
    expect(h.outbox.messagesTo('ops.results')).toEqual([result]);
  });

  it('cancels an unfinished process and sends no answer when the command has no replyTo', async () => {
    const h = new Harness();
    await h.submit();
    await h.engine.apply('p-1', { type: 'claim' });
    const result = await h.handler.handle(command({ command: 'cancel', replyTo: undefined }));

    expect(result).toMatchObject({ ok: true, message: "canceled by alice; undo held 5000 ms until the in-flight attempt's complete-by" });
    expect(await h.doc()).toMatchObject({ state: 'Pending', mode: 'compensate', canceled: true });
    expect(h.outbox.sent.filter((s) => s.queue === 'ops.results')).toEqual([]);
  });

  it('throws when the process keeps changing, so the command is redelivered', async () => {
    let contend = false;
    const h: Harness = new Harness({
      beforeCommit: async (next, expected) => {
        if (!contend || next.lockedBy === 'intruder') return;
        const current = await h.doc();
        await h.store.commit({ ...current, lockedBy: 'intruder', revision: expected + 1 }, expected);
      },
    });
    await h.submit();
    await h.driveToError();
    contend = true;

    await expect(h.handler.handle(command())).rejects.toThrow(
      'process p-1 kept changing; the command will be retried',
    );
    expect(h.outbox.messagesTo('ops.results')).toEqual([]);
  });
});
