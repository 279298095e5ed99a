import { QueueNames, type AgentReply, type AgentRequest, type ProcessDocument } from '@sas/contracts';
import { InMemoryProcessStore, type InMemoryProcessStoreOptions } from '@sas/store';
import { WorkflowRegistry, builtInWorkflows, createProcess, orderFulfilmentV1 } from '@sas/workflow';
import { pino } from 'pino';
import type { Outbox, OutboxSendOptions } from './outbox';
import { ProcessEngine } from './process-engine';

// --- harness (kept in the test file on purpose: test helpers must not reach the package build) ---

const T0 = Date.UTC(2030, 0, 1);
const logger = pino({ level: 'silent' });

interface Sent {
  queue: string;
  message: unknown;
  options: OutboxSendOptions | undefined;
}

class RecordingOutbox implements Outbox {
  readonly sent: Sent[] = [];

  async send(queue: string, message: unknown, options?: OutboxSendOptions): Promise<void> {
    this.sent.push({ queue, message, options });
  }

  to(queue: string): Sent[] {
    return this.sent.filter((s) => s.queue === queue);
  }

  requests(): AgentRequest[] {
    return this.sent.filter((s) => s.queue.startsWith('agent.')).map((s) => s.message as AgentRequest);
  }

  clear(): void {
    this.sent.length = 0;
  }
}

/** One store shared by every engine it hands out, as schedulers and supervisors share MongoDB. */
class Harness {
  t = T0;
  readonly clock = { now: (): number => this.t };
  readonly outbox = new RecordingOutbox();
  readonly registry = new WorkflowRegistry(builtInWorkflows);
  readonly store: InMemoryProcessStore;

  constructor(storeOptions: InMemoryProcessStoreOptions = {}) {
    this.store = new InMemoryProcessStore(storeOptions);
  }

  engine(who = 'scheduler-1', maxConflicts?: number): ProcessEngine {
    return new ProcessEngine({
      store: this.store,
      outbox: this.outbox,
      registry: this.registry,
      clock: this.clock,
      who,
      replyQueue: QueueNames.schedulerReplies,
      logger,
      maxConflicts,
    });
  }

  async submit(processId = 'p-1'): Promise<ProcessDocument> {
    const doc = createProcess({
      processId,
      orderId: `order-${processId}`,
      payload: {},
      replyTo: 'app.status',
      workflow: orderFulfilmentV1,
      now: this.t,
    });
    const inserted = await this.store.insert(doc);
    if (!inserted.ok) throw new Error(`could not insert ${processId}: ${inserted.reason}`);
    return doc;
  }

  async doc(processId = 'p-1'): Promise<ProcessDocument> {
    const doc = await this.store.get(processId);
    if (!doc) throw new Error(`process ${processId} is not in the store`);
    return doc;
  }

  /** Moves the clock to the held step's complete-by. */
  async passCompleteBy(processId = 'p-1'): Promise<void> {
    const { completeBy } = await this.doc(processId);
    if (!completeBy) throw new Error(`process ${processId} holds no step`);
    this.t = completeBy.getTime();
  }
}

function okReply(request: AgentRequest, at: number): AgentReply {
  const { processId, step, stepIndex, mode, attempt, agent } = request;
  const fence = { schemaVersion: 1 as const, processId, step, stepIndex, mode, attempt, agent };
  return { ...fence, agentInstance: `${agent}-1`, at, outcome: 'ok', result: {} };
}

function lastRequest(outbox: RecordingOutbox): AgentRequest {
  const request = outbox.requests().at(-1);
  if (!request) throw new Error('no agent request was sent');
  return request;
}

// --- tests ---

describe('ProcessEngine when another writer commits first', () => {
  it('re-reads and ignores a reply made stale by a concurrent recovery', async () => {
    let recoverFirst = false;
    const h: Harness = new Harness({
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
      .apply('p-1', { type: 'reply', reply: okReply(request, h.t) });

    expect(outcome).toEqual({
      kind: 'ignored',
      reason: 'stale reply from inventory-1: process is Pending, not Processing',
    });
    expect(await h.doc()).toMatchObject({ state: 'Pending', attempt: 2, failureCount: 1, currentStep: 0 });
    expect(h.outbox.requests()).toEqual([]);
    expect((await h.store.history('p-1')).map((e) => e.who)).toEqual(['scheduler-1', 'supervisor-1']);
  });

  it('re-evaluates an input against the fresh document and applies it when it still holds', async () => {
    let bumps = 1;
    const h: Harness = new Harness({
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
      .apply('p-1', { type: 'reply', reply: okReply(lastRequest(h.outbox), h.t) });

    expect(outcome).toMatchObject({ kind: 'applied', process: { currentStep: 1, attempt: 2, revision: 3 } });
    expect(await h.doc()).toMatchObject({ currentStep: 1, attempt: 2, revision: 3 });
    expect(h.outbox.to('agent.payment.requests')).toHaveLength(1);
  });

  it('returns ignored when it loses a claim race, and sends nothing', async () => {
    const h = new Harness();
    const loaded = await h.submit();
    const first = await h.engine('scheduler-1').applyTo(loaded, { type: 'claim' });
    const second = await h.engine('scheduler-2').applyTo(loaded, { type: 'claim' });

    expect(first.kind).toBe('applied');
    expect(second).toEqual({ kind: 'ignored', reason: 'claimed by another scheduler' });
    expect(await h.doc()).toMatchObject({ lockedBy: 'scheduler-1', attempt: 1 });
    expect(h.outbox.requests()).toHaveLength(1);
  });

  it('returns contended when another writer wins every round', async () => {
    let rounds = 0;
    const h: Harness = new Harness({
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
      .apply('p-1', { type: 'reply', reply: okReply(request, h.t) });

    expect(outcome).toEqual({ kind: 'contended' });
    expect(rounds).toBe(3);
    expect(h.outbox.to('agent.payment.requests')).toEqual([]);
  });
});
