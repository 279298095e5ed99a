import {
  QueueNames,
  type AgentReply,
  type AgentRequest,
  type ProcessDocument,
  type StatusEvent,
} from '@sas/contracts';
import { ProcessEngine } from '@sas/engine';
import { InMemoryProcessStore, type InMemoryProcessStoreOptions } from '@sas/store';
import { ManualClock, RecordingOutbox } from '@sas/testkit';
import { WorkflowRegistry, builtInWorkflows, createProcess, orderFulfilmentV1 } from '@sas/workflow';
import { pino } from 'pino';
import { Scheduler } from './scheduler';

// --- harness (kept in the test file on purpose: test helpers must not reach the package build) ---

const T0 = Date.UTC(2030, 0, 1);
const logger = pino({ level: 'silent' });

/** Every agent queue is named `agent.<agent>.requests`. */
function isAgentRequest(sent: { queue: string }): boolean {
  return sent.queue.startsWith('agent.');
}

/** The agent requests sent so far, in order. */
function requests(outbox: RecordingOutbox): AgentRequest[] {
  return outbox.sent.filter(isAgentRequest).map((s) => s.message as AgentRequest);
}

/** Takes the agent requests sent so far, as agents would consume them. */
function drainRequests(outbox: RecordingOutbox): AgentRequest[] {
  return outbox.take(isAgentRequest).map((s) => s.message as AgentRequest);
}

class Harness {
  readonly clock = new ManualClock(T0);
  readonly outbox = new RecordingOutbox();
  readonly registry = new WorkflowRegistry(builtInWorkflows);
  readonly store: InMemoryProcessStore;

  constructor(storeOptions: InMemoryProcessStoreOptions = {}, store?: InMemoryProcessStore) {
    this.store = store ?? new InMemoryProcessStore(storeOptions);
  }

  scheduler(who: string, claimBatch = 20, canDispatch?: () => boolean): Scheduler {
    const engine = new ProcessEngine({
      store: this.store,
      outbox: this.outbox,
      registry: this.registry,
      clock: this.clock,
      who,
      replyQueue: QueueNames.schedulerReplies,
      logger,
    });
    return new Scheduler({
      engine,
      store: this.store,
      clock: this.clock,
      logger,
      claimBatch,
      pollIntervalMs: 0,
      ...(canDispatch ? { canDispatch } : {}),
    });
  }

  async submit(count: number, notBefore = this.clock.t): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const processId = `p-${String(this.store.list().length).padStart(3, '0')}`;
      const doc = createProcess({
        processId,
        orderId: `order-${processId}`,
        payload: {},
        replyTo: 'app.status',
        workflow: orderFulfilmentV1,
        now: this.clock.t,
      });
      const inserted = await this.store.insert({ ...doc, notBefore: new Date(notBefore) });
      if (!inserted.ok) throw new Error(`could not insert ${processId}`);
      ids.push(processId);
    }
    return ids;
  }

  async doc(processId: string): Promise<ProcessDocument> {
    const doc = await this.store.get(processId);
    if (!doc) throw new Error(`process ${processId} is not in the store`);
    return doc;
  }
}

function okReply(request: AgentRequest, at: number): AgentReply {
  const { processId, step, stepIndex, mode, attempt, agent } = request;
  return {
    schemaVersion: 1,
    processId,
    step,
    stepIndex,
    mode,
    attempt,
    agent,
    agentInstance: `${agent}-1`,
    at,
    outcome: 'ok',
    result: { done: step },
  };
}

/** A store whose `p-poison` document cannot be decoded, as a payload nested thousands deep could not. */
class PoisonStore extends InMemoryProcessStore {
  override async get(processId: string): Promise<ProcessDocument | null> {
    if (processId === 'p-poison') throw new RangeError('Maximum call stack size exceeded');
    return super.get(processId);
  }
}

// --- tests ---

describe('Scheduler claiming processes', () => {
  it('skips processes whose workflow version is not deployed, so they never block the ones behind them', async () => {
    const h = new Harness();
    const poison = createProcess({
      processId: 'p-poison',
      orderId: 'order-poison',
      payload: {},
      replyTo: null,
      workflow: { ...orderFulfilmentV1, version: 99 },
      now: h.clock.t - 1000,
    });
    await h.store.insert(poison);
    const good = await h.submit(5);
    const scheduler = h.scheduler('scheduler-1', 1);
    await scheduler.claimAvailable();

    for (const id of good) expect(await h.doc(id)).toMatchObject({ state: 'Processing' });
    expect(await h.doc('p-poison')).toMatchObject({ state: 'Pending', attempt: 0 });
    expect(scheduler.metrics()).toMatchObject({ claimed: 5, claimErrors: 0, quarantined: 0 });
  });

  it('claims every claimable process across several batches and leaves a not-yet-due one Pending', async () => {
    const h = new Harness();
    const due = await h.submit(7);
    const [later] = await h.submit(1, T0 + 60_000);
    const scheduler = h.scheduler('scheduler-1', 3);
    await scheduler.claimAvailable();

    for (const id of due)
      expect(await h.doc(id)).toMatchObject({ state: 'Processing', attempt: 1, lockedBy: 'scheduler-1' });
    expect(await h.doc(later ?? '')).toMatchObject({ state: 'Pending', attempt: 0 });
    expect(scheduler.metrics()).toMatchObject({ claimed: 7 });
    expect(
      requests(h.outbox)
        .map((r) => r.processId)
        .sort(),
    ).toEqual(due);
  });

  it('claims each process exactly once when two schedulers on one store run at the same time', async () => {
    const h = new Harness();
    const ids = await h.submit(30);
    const a = h.scheduler('scheduler-a', 4);
    const b = h.scheduler('scheduler-b', 4);
    await Promise.all([a.claimAvailable(), b.claimAvailable(), a.claimAvailable(), b.claimAvailable()]);

    const docs = await Promise.all(ids.map((id) => h.doc(id)));
    expect(docs.every((d) => d.state === 'Processing' && d.attempt === 1)).toBe(true);
    expect(
      requests(h.outbox)
        .map((r) => r.processId)
        .sort(),
    ).toEqual(ids);
    expect((a.metrics()['claimed'] ?? 0) + (b.metrics()['claimed'] ?? 0)).toBe(30);
    // Both took part: neither simply ran after the other had finished.
    expect(new Set(docs.map((d) => d.lockedBy))).toEqual(new Set(['scheduler-a', 'scheduler-b']));
    for (const id of ids) expect(await h.store.history(id)).toHaveLength(1);
  });

  it('runs one claim round for a burst of wake-ups instead of one each', async () => {
    let queries = 0;
    const h = new Harness();
    await h.submit(2);
    const scheduler = h.scheduler('scheduler-1');
    const find = h.store.findClaimable.bind(h.store);
    h.store.findClaimable = (now, limit) => {
      queries += 1;
      return find(now, limit);
    };
    await Promise.all([scheduler.claimAvailable(), scheduler.claimAvailable(), scheduler.claimAvailable()]);

    expect(scheduler.metrics()).toMatchObject({ claimed: 2 });
    // The first round, plus one more asked for by the calls made while it ran.
    expect(queries).toBe(2);
  });

  it('claims what is already waiting when started, and stops on close', async () => {
    const h = new Harness();
    const [id] = await h.submit(1);
    const scheduler = h.scheduler('scheduler-1');
    scheduler.start();
    await scheduler.close();
    await scheduler.close();

    expect(await h.doc(id ?? '')).toMatchObject({ state: 'Processing' });
    const [late = ''] = await h.submit(1);
    await scheduler.claimAvailable();
    expect(await h.doc(late)).toMatchObject({ state: 'Pending' });
    expect(scheduler.metrics()).toMatchObject({ claimed: 1 });
  });
});

describe('Scheduler woken for one process', () => {
  /** Counts the claim queries a scheduler makes on `h`'s store. */
  function countQueries(h: Harness): { queries: number } {
    const counter = { queries: 0 };
    const find = h.store.findClaimable.bind(h.store);
    h.store.findClaimable = (now, limit) => {
      counter.queries += 1;
      return find(now, limit);
    };
    return counter;
  }

  it('claims the process the wake-up names without a claim query', async () => {
    const h = new Harness();
    const [id = '', other = ''] = await h.submit(2);
    const counter = countQueries(h);
    const scheduler = h.scheduler('scheduler-1');

    await scheduler.onWakeup({ schemaVersion: 1, processId: id, reason: 'submitted' });

    expect(counter.queries).toBe(0);
    expect(await h.doc(id)).toMatchObject({ state: 'Processing', lockedBy: 'scheduler-1', attempt: 1 });
    // Only the named one: the other waits for its own wake-up or the poll.
    expect(await h.doc(other)).toMatchObject({ state: 'Pending' });
    expect(requests(h.outbox).map((r) => r.processId)).toEqual([id]);
    expect(scheduler.metrics()).toMatchObject({ claimed: 1 });
  });

  it('claims a process once when two schedulers are woken for it at the same time', async () => {
    const h = new Harness();
    const [id = ''] = await h.submit(1);
    const a = h.scheduler('scheduler-a');
    const b = h.scheduler('scheduler-b');
    const wakeup = { schemaVersion: 1 as const, processId: id, reason: 'submitted' };

    await Promise.all([a.onWakeup(wakeup), b.onWakeup(wakeup), a.claimAvailable()]);

    expect(await h.doc(id)).toMatchObject({ state: 'Processing', attempt: 1, revision: 1 });
    expect(requests(h.outbox)).toHaveLength(1);
    expect((a.metrics()['claimed'] ?? 0) + (b.metrics()['claimed'] ?? 0)).toBe(1);
    expect(await h.store.history(id)).toHaveLength(1);
  });

  it('leaves a process that is not due yet for later, without a claim round', async () => {
    const h = new Harness();
    const [id = ''] = await h.submit(1, T0 + 60_000);
    const counter = countQueries(h);
    const scheduler = h.scheduler('scheduler-1');

    await scheduler.onWakeup({ schemaVersion: 1, processId: id, reason: 'notBefore reached' });

    expect(counter.queries).toBe(0);
    expect(await h.doc(id)).toMatchObject({ state: 'Pending', attempt: 0 });
  });

  it('runs a claim round for a wake-up that names no process, or when the named claim fails', async () => {
    const h = new Harness();
    const [first = '', second = ''] = await h.submit(2);
    const counter = countQueries(h);
    const scheduler = h.scheduler('scheduler-1');

    await scheduler.onWakeup({ schemaVersion: 1, reason: 'operator' });
    expect(counter.queries).toBe(1);
    expect(await h.doc(first)).toMatchObject({ state: 'Processing' });
    expect(await h.doc(second)).toMatchObject({ state: 'Processing' });

    const [third = ''] = await h.submit(1);
    const get = h.store.get.bind(h.store);
    let failures = 1;
    h.store.get = (processId) => (failures-- > 0 ? Promise.reject(new Error('connection reset')) : get(processId));
    await scheduler.onWakeup({ schemaVersion: 1, processId: third, reason: 'submitted' });

    expect(counter.queries).toBe(2);
    expect(await h.doc(third)).toMatchObject({ state: 'Processing', attempt: 1 });
    expect(scheduler.metrics()).toMatchObject({ claimed: 3, claimErrors: 1 });
  });
});

describe('Scheduler applying replies', () => {
  it('advances a process through every step to Processed', async () => {
    const h = new Harness();
    const [id = ''] = await h.submit(1);
    const scheduler = h.scheduler('scheduler-1');
    await scheduler.claimAvailable();
    const steps: string[] = [];
    for (let round = 0; round < 10 && (await h.doc(id)).state === 'Processing'; round++) {
      for (const request of drainRequests(h.outbox)) {
        steps.push(`${request.agent}.${request.operation}#${request.attempt}`);
        h.clock.t += 10;
        expect((await scheduler.onReply(okReply(request, h.clock.t))).kind).toBe('applied');
      }
    }

    const doc = await h.doc(id);
    expect(doc).toMatchObject({ state: 'Processed', lockedBy: null, completeBy: null });
    expect(doc.steps.map((s) => [s.state, s.result])).toEqual([
      ['Completed', { done: 'reserve-inventory' }],
      ['Completed', { done: 'charge-payment' }],
      ['Completed', { done: 'create-shipment' }],
    ]);
    expect(steps).toEqual(['inventory.reserve#1', 'payment.charge#2', 'shipping.create#3']);
    const statuses = h.outbox.sent
      .filter((s) => s.queue === 'app.status')
      .map((s) => (s.message as StatusEvent).status);
    expect(statuses).toEqual(['Processing', 'StepCompleted', 'StepCompleted', 'StepCompleted', 'Processed']);
    expect(scheduler.metrics()).toMatchObject({ replies: 3, staleReplies: 0 });
  });

  it('counts a reply of an old attempt as stale and changes nothing', async () => {
    const h = new Harness();
    const [id = ''] = await h.submit(1);
    const scheduler = h.scheduler('scheduler-1');
    await scheduler.claimAvailable();
    const [request] = drainRequests(h.outbox);
    if (!request) throw new Error('nothing was dispatched');
    await scheduler.onReply(okReply(request, h.clock.t));
    const before = await h.doc(id);
    const outcome = await scheduler.onReply(okReply(request, h.clock.t));

    expect(outcome).toEqual({
      kind: 'ignored',
      reason: expect.stringContaining('attempt 1 is not current (2)'),
    });
    expect(await h.doc(id)).toEqual(before);
    expect(scheduler.metrics()).toMatchObject({ replies: 2, staleReplies: 1 });
  });

  it('returns not-found for a reply to a process that no longer exists, without throwing', async () => {
    const h = new Harness();
    await h.submit(1);
    const scheduler = h.scheduler('scheduler-1');
    await scheduler.claimAvailable();
    const [request] = drainRequests(h.outbox);
    if (!request) throw new Error('nothing was dispatched');

    expect(await scheduler.onReply(okReply({ ...request, processId: 'gone' }, h.clock.t))).toEqual({
      kind: 'not-found',
    });
  });

  it('throws when the process keeps changing under the reply, so the bus redelivers it', async () => {
    let contend = false;
    const h: Harness = new Harness({
      beforeCommit: async (next, expected) => {
        if (!contend || next.lockedBy === 'intruder') return;
        const current = await h.doc(next._id);
        await h.store.commit({ ...current, lockedBy: 'intruder', revision: expected + 1 }, expected);
      },
    });
    const [id = ''] = await h.submit(1);
    const scheduler = h.scheduler('scheduler-1');
    await scheduler.claimAvailable();
    const [request] = drainRequests(h.outbox);
    if (!request) throw new Error('nothing was dispatched');
    contend = true;

    await expect(scheduler.onReply(okReply(request, h.clock.t))).rejects.toThrow(
      `process ${id} kept changing while applying a reply; will retry`,
    );
    expect(await h.doc(id)).toMatchObject({ currentStep: 0, attempt: 1 });
  });
});

describe('Scheduler with a process it cannot handle', () => {
  async function insertUndeployed(h: Harness): Promise<void> {
    const poison = createProcess({
      processId: 'p-poison',
      orderId: 'order-poison',
      payload: {},
      replyTo: 'app.status',
      workflow: { ...orderFulfilmentV1, version: 99 },
      now: h.clock.t,
    });
    await h.store.insert(poison);
  }

  it('gives a process whose workflow version is still not deployed after 10 minutes up to an operator', async () => {
    const h = new Harness();
    await insertUndeployed(h);
    const scheduler = h.scheduler('scheduler-1');
    h.clock.t += 599_999;
    await scheduler.claimAvailable();
    expect(await h.doc('p-poison')).toMatchObject({ state: 'Pending' });

    h.clock.t += 1;
    await scheduler.claimAvailable();
    const given = await h.doc('p-poison');
    expect(given).toMatchObject({ state: 'Error', attempt: 1, revision: 1, lockedBy: null });
    expect(given.reason).toBe('cannot be handled: Workflow order-fulfilment v99 is not registered here; deploy a build that still has it');
    expect(scheduler.metrics()).toMatchObject({ quarantined: 1 });
    // The alert, the Failed status and the history entry are owed in its outbox, for the sweep to deliver.
    expect(given.outbox?.map((e) => (e.kind === 'message' ? e.queue : 'history'))).toEqual(['history', QueueNames.alerts, 'app.status']);
    expect(given.outboxSince).toEqual(new Date(h.clock.t));
  });

  it('gives a process whose document cannot be read up to an operator at once, and claims the others', async () => {
    const h = new Harness({}, new PoisonStore());
    await insertUndeployed(h);
    const good = await h.submit(2);
    const scheduler = h.scheduler('scheduler-1');
    await scheduler.claimAvailable();
    expect(await h.store.list().find((d) => d._id === 'p-poison')).toMatchObject({
      state: 'Error',
      reason: 'cannot be handled: its document cannot be read (Maximum call stack size exceeded)',
    });
    for (const id of good) expect(await h.doc(id)).toMatchObject({ state: 'Processing' });
  });

  it('claims nothing while the bus cannot dispatch, and everything once it can', async () => {
    const h = new Harness();
    const ids = await h.submit(3);
    let connected = false;
    const scheduler = h.scheduler('scheduler-1', 20, () => connected);
    await scheduler.claimAvailable();
    for (const id of ids) expect(await h.doc(id)).toMatchObject({ state: 'Pending', attempt: 0 });
    expect(scheduler.metrics()).toMatchObject({ skippedRounds: 1, claimed: 0 });
    connected = true;
    await scheduler.claimAvailable();
    for (const id of ids) expect(await h.doc(id)).toMatchObject({ state: 'Processing', attempt: 1 });
  });
});

describe('Scheduler handed a new process by the submission beside it (decision 128)', () => {
  it('claims it from the copy, without reading it, and counts it apart', async () => {
    const h = new Harness();
    const [id = ''] = await h.submit(1);
    const copy = await h.doc(id);
    let reads = 0;
    const get = h.store.get.bind(h.store);
    h.store.get = (processId) => {
      reads += 1;
      return get(processId);
    };
    const scheduler = h.scheduler('scheduler-1');

    expect(await scheduler.claimHandedOver(copy)).toBe(true);

    expect(reads).toBe(0);
    expect(await h.doc(id)).toMatchObject({ state: 'Processing', lockedBy: 'scheduler-1', attempt: 1 });
    expect(requests(h.outbox).map((r) => r.processId)).toEqual([id]);
    expect(scheduler.metrics()).toMatchObject({ claimed: 1, handedOver: 1 });
  });

  it('declines, claiming nothing, while its bus is down or once it is closing, so the submission sends the wake-up job instead', async () => {
    const h = new Harness();
    const [first = '', second = ''] = await h.submit(2);
    const disconnected = h.scheduler('scheduler-1', 20, () => false);
    expect(await disconnected.claimHandedOver(await h.doc(first))).toBe(false);

    const closing = h.scheduler('scheduler-2');
    await closing.close();
    expect(await closing.claimHandedOver(await h.doc(second))).toBe(false);

    expect((await h.store.list()).map((d) => d.state)).toEqual(['Pending', 'Pending']);
    expect(requests(h.outbox)).toEqual([]);
  });

  it('declines a process another scheduler claimed first: one claim, one dispatch', async () => {
    const h = new Harness();
    const [id = ''] = await h.submit(1);
    const copy = await h.doc(id);
    await h.scheduler('scheduler-2').onWakeup({ schemaVersion: 1, processId: id, reason: 'submitted' });

    expect(await h.scheduler('scheduler-1').claimHandedOver(copy)).toBe(false);
    expect(await h.doc(id)).toMatchObject({ lockedBy: 'scheduler-2', attempt: 1 });
    expect(requests(h.outbox)).toHaveLength(1);
  });
});
