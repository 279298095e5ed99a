import { MAX_STEP_RESULT_BYTES, QueueNames, type AgentRequest, type ProcessDocument, type ProcessSignal } from '@sas/contracts';
import { ProcessEngine } from '@sas/engine';
import { ProbeServer, createMetricsRegistry } from '@sas/runtime';
import { InMemoryProcessStore } from '@sas/store';
import { ManualClock, RecordingOutbox, scrapeMetrics } from '@sas/testkit';
import { WorkflowRegistry, createProcess, type WorkflowDefinition } from '@sas/workflow';
import { pino } from 'pino';
import { registerSignalCounters } from './signal-counters';
import { SignalHandler } from './signal-handler';

// --- harness (kept in the test file on purpose: test helpers must not reach the package build) ---

const T0 = Date.UTC(2030, 0, 1);
const HOUR = 3_600_000;
const logger = pino({ level: 'silent' });
const retry = { maxAttempts: 3, initialBackoffMs: 50, maxBackoffMs: 500, multiplier: 2, jitter: 0.5 };

/** reserve, then `approval` waiting an hour for the signal `approved` (then undo), then ship. */
const approvalWorkflow: WorkflowDefinition = {
  name: 'approval',
  version: 1,
  steps: [
    { name: 'reserve', agent: 'inventory', operation: 'reserve', compensation: 'release', completeByMs: 5_000, retry },
    { name: 'approval', signal: { name: 'approved', timeoutMs: HOUR, onTimeout: 'compensate' } },
    { name: 'ship', agent: 'shipping', operation: 'ship', compensation: 'cancel', completeByMs: 5_000, retry },
  ],
  failureThreshold: 3,
  onThreshold: { policy: 'compensate' },
  onPermanentFailure: 'compensate',
  retentionMs: 86_400_000,
};

class Harness {
  readonly clock = new ManualClock(T0);
  readonly outbox = new RecordingOutbox();
  readonly store = new InMemoryProcessStore();
  readonly engine = new ProcessEngine({
    store: this.store,
    outbox: this.outbox,
    registry: new WorkflowRegistry([approvalWorkflow]),
    clock: this.clock,
    who: 'scheduler-1',
    replyQueue: QueueNames.schedulerReplies,
    logger,
  });
  readonly handler = new SignalHandler(this.engine, this.store, this.outbox, logger);

  /** p-1 (order o-1) submitted and claimed: its first step is in flight. */
  async started(): Promise<void> {
    await this.store.insert(createProcess({ processId: 'p-1', orderId: 'o-1', payload: {}, replyTo: null, workflow: approvalWorkflow, now: this.clock.t }));
    await this.engine.apply('p-1', { type: 'claim' });
  }

  /** p-1's first step answered: the signal step waits. */
  async waiting(): Promise<void> {
    await this.started();
    const doc = await this.doc();
    this.clock.t += 100;
    const request = this.outbox.messagesTo(QueueNames.agentRequests('inventory'))[0] as AgentRequest;
    await this.engine.apply('p-1', {
      type: 'reply',
      reply: { schemaVersion: 1, processId: 'p-1', step: request.step, stepIndex: request.stepIndex, mode: 'forward', attempt: doc.attempt, agent: 'inventory', agentInstance: 'inventory-1', at: this.clock.t, outcome: 'ok', result: { reservationId: 'r-1' } },
    });
    const after = await this.doc();
    if (after.steps[1]?.state !== 'Running') throw new Error(`expected the signal step to wait, got ${after.steps[1]?.state}`);
  }

  async doc(): Promise<ProcessDocument> {
    const doc = await this.store.get('p-1');
    if (!doc) throw new Error('p-1 is not in the store');
    return doc;
  }

  /** Requests sent to `agent` so far. */
  dispatchesOf(agent: string): number {
    return this.outbox.messagesTo(QueueNames.agentRequests(agent)).length;
  }
}

function signal(overrides: Partial<ProcessSignal> = {}): ProcessSignal {
  return { schemaVersion: 1, orderId: 'o-1', name: 'approved', data: { approvedBy: 'ann' }, signalId: 'sig-1', by: 'shop', replyTo: 'shop.signals', ...overrides };
}

// --- tests ---

describe('SignalHandler', () => {
  it('completes the waiting signal step by orderId, answers consumed, and the next step is dispatched', async () => {
    const h = new Harness();
    await h.waiting();
    const result = await h.handler.handle(signal());

    expect(result).toEqual({
      schemaVersion: 1,
      signalId: 'sig-1',
      processId: 'p-1',
      orderId: 'o-1',
      name: 'approved',
      ok: true,
      outcome: 'consumed',
      message: 'signal approved (sig-1) from shop; consumed by approval; dispatching ship',
    });
    expect((await h.doc()).steps[1]).toMatchObject({ state: 'Completed', result: { approvedBy: 'ann' } });
    expect(h.dispatchesOf('shipping')).toBe(1);
    expect(h.outbox.messagesTo('shop.signals')).toEqual([result]);
  });

  // Shown failing once with the repeat lookup in applySignal disabled (`s.id === input.signalId && false`):
  // the second delivery was stored as a second signal, the process held two, and the answer was no repeat.
  it('applies a signal once: a redelivery is answered as a repeat, and nothing is dispatched again', async () => {
    const h = new Harness();
    await h.waiting();
    await h.handler.handle(signal());
    const before = await h.doc();
    const again = await h.handler.handle(signal());

    expect(again).toMatchObject({ ok: true, outcome: 'repeat', processId: 'p-1' });
    expect(again.message).toMatch(/^signal sig-1 \(approved\) was received at .* and consumed by approval; counted once$/);
    expect(await h.doc()).toEqual(before);
    expect((await h.doc()).signals).toHaveLength(1);
    expect(h.dispatchesOf('shipping')).toBe(1);
  });

  it('keeps a signal that arrives before its step, and answers so', async () => {
    const h = new Harness();
    await h.started();
    const result = await h.handler.handle(signal({ signalId: 'early' }));
    expect(result).toMatchObject({ ok: true, outcome: 'kept', message: 'signal approved (early) from shop kept until step approval is reached' });
  });

  it('answers refused for a finished process, and not-found for an unknown order', async () => {
    const h = new Harness();
    await h.waiting();
    h.clock.t += HOUR;
    await h.engine.apply('p-1', { type: 'claim' });
    expect(await h.handler.handle(signal({ signalId: 'late' }))).toMatchObject({ ok: false, outcome: 'refused', message: 'process is being undone (Compensating); signal not used' });

    const unknown = await h.handler.handle(signal({ orderId: 'o-404' }));
    expect(unknown).toMatchObject({ ok: false, outcome: 'not-found', processId: null, orderId: 'o-404' });
    expect(unknown.message).toBe("no process has the orderId 'o-404' (wrong id, not submitted yet, or removed after its retention); signal not used");
  });

  it('identifies a signal without its own id by the message that carried it', async () => {
    const h = new Harness();
    await h.waiting();
    const { signalId: _omitted, ...withoutId } = signal();
    const result = await h.handler.handle(withoutId, 'job-77');
    expect(result).toMatchObject({ signalId: 'message:job-77', outcome: 'consumed' });
  });

  it('answers the sender of a rejected message with the reasons when its reply queue can be read', async () => {
    const h = new Harness();
    await h.handler.rejected({ replyTo: 'shop.signals', orderId: 'o-1', name: 'Approved', signalId: 'x' }, 'invalid message on process.signals', ['name: must be lower-case']);
    await h.handler.rejected({ replyTo: 'bad:queue' }, 'invalid message on process.signals', []);
    expect(h.outbox.messagesTo('shop.signals')).toEqual([
      {
        schemaVersion: 1,
        signalId: 'x',
        processId: null,
        orderId: 'o-1',
        name: 'Approved',
        ok: false,
        outcome: 'invalid',
        message: 'invalid message on process.signals: name: must be lower-case; the signal was not applied and is kept in the dead-letter queue; fix it and send it again',
      },
    ]);
    expect(h.outbox.sent).toHaveLength(1);
  });
});

describe("the scheduler's signal counters", () => {
  it('count every answer by its outcome, read at each scrape as sas_scheduler_signals_total', async () => {
    const h = new Harness();
    const registry = createMetricsRegistry();
    registerSignalCounters(registry, h.handler);
    const probe = new ProbeServer({ ready: () => true, registry });
    const url = `http://127.0.0.1:${await probe.start(0, '127.0.0.1')}/metrics`;
    const byOutcome = async (): Promise<[string | undefined, number][]> => (await scrapeMetrics(url)).series('sas_scheduler_signals_total').map((s) => [s.labels['outcome'], s.value]);
    try {
      const page = await scrapeMetrics(url);
      expect(page.family('sas_scheduler_signals_total').type).toBe('counter');
      expect(page.family('sas_scheduler_signals_total').help).toMatch(/^Signals answered by outcome/);
      expect(await byOutcome()).toEqual([['consumed', 0], ['kept', 0], ['repeat', 0], ['refused', 0], ['not-found', 0], ['invalid', 0]]);

      await h.waiting();
      const outcomes = [
        await h.handler.handle(signal()),
        await h.handler.handle(signal()),
        await h.handler.handle(signal({ signalId: 'other', name: 'rejected' })),
        await h.handler.handle(signal({ signalId: 'big', data: { blob: 'x'.repeat(MAX_STEP_RESULT_BYTES) } })),
        await h.handler.handle(signal({ orderId: 'o-404' })),
      ].map((r) => r.outcome);
      expect(outcomes).toEqual(['consumed', 'repeat', 'kept', 'refused', 'not-found']);
      // An invalid message counts whether or not its sender can be answered.
      await h.handler.rejected({ replyTo: 'shop.signals', name: 'Approved' }, 'invalid message on process.signals', ['name: must be lower-case']);
      await h.handler.rejected({ replyTo: 'bad:queue' }, 'invalid message on process.signals', []);

      expect(await byOutcome()).toEqual([['consumed', 1], ['kept', 1], ['repeat', 1], ['refused', 1], ['not-found', 1], ['invalid', 2]]);
    } finally {
      await probe.close();
    }
  });
});
