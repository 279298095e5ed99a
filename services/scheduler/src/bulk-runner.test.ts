import { BulkRunner, BulkOperationService, InMemoryBulkCandidates, InMemoryBulkOperationStore, bulkLeaseName, type ApplyOperatorCommand, type BulkOperationStore } from '@sas/bulk';
import { BulkOperationRequest, QueueNames, type BulkOperationDocument, type ProcessDocument } from '@sas/contracts';
import { ProcessEngine } from '@sas/engine';
import { InMemoryLease, InMemoryProcessStore } from '@sas/store';
import { ManualClock, RecordingOutbox } from '@sas/testkit';
import { WorkflowRegistry, builtInWorkflows, createProcess, orderFulfilmentManualV1 } from '@sas/workflow';
import { pino } from 'pino';
import { OperatorCommandHandler } from './operator-command-handler';

// --- harness (kept in the test file on purpose: test helpers must not reach the package build) ---

const T0 = Date.UTC(2030, 0, 1);
const LEASE_TTL_MS = 3_600_000;
const logger = pino({ level: 'silent' });

/** A promise the test resolves when it chooses: a runner paused (or dead) at that point. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

class Harness {
  readonly clock = new ManualClock(T0);
  readonly store = new InMemoryProcessStore();
  readonly operations = new InMemoryBulkOperationStore();
  readonly candidates = new InMemoryBulkCandidates(() => this.store.list());
  readonly lease = new InMemoryLease();
  readonly engine = new ProcessEngine({
    store: this.store,
    outbox: new RecordingOutbox(),
    registry: new WorkflowRegistry(builtInWorkflows),
    clock: this.clock,
    who: 'scheduler-1',
    replyQueue: QueueNames.schedulerReplies,
    logger,
  });
  readonly handler = new OperatorCommandHandler(this.engine, new RecordingOutbox(), logger);
  readonly service = new BulkOperationService(this.operations, this.candidates, this.clock, () => 'op-1');

  runner(instanceId: string, apply: ApplyOperatorCommand = (c) => this.handler.handle(c), operations: BulkOperationStore = this.operations): BulkRunner {
    return new BulkRunner(operations, this.candidates, apply, this.lease, this.clock, logger, { instanceId, pollIntervalMs: 0, leaseTtlMs: LEASE_TTL_MS, pageSize: 2 });
  }

  async submit(processId: string): Promise<void> {
    await this.store.insert(createProcess({ processId, orderId: `order-${processId}`, payload: {}, replyTo: null, workflow: orderFulfilmentManualV1, now: this.clock.t }));
  }

  /** Drives the process to Error: its first step times out as often as the threshold allows. */
  async driveToError(processId: string): Promise<void> {
    for (let i = 0; i < orderFulfilmentManualV1.failureThreshold; i++) {
      await this.engine.apply(processId, { type: 'claim' });
      this.clock.t = (await this.doc(processId)).completeBy?.getTime() ?? this.clock.t;
      await this.engine.apply(processId, { type: 'expire' });
    }
    expect((await this.doc(processId)).state).toBe('Error');
  }

  async doc(processId: string): Promise<ProcessDocument> {
    const doc = await this.store.get(processId);
    if (!doc) throw new Error(`process ${processId} is not in the store`);
    return doc;
  }

  /** How often the process history says this operation resubmitted it. */
  async bulkResubmits(processId: string): Promise<number> {
    return (await this.store.history(processId)).filter((e) => e.why.startsWith('resubmitted by alice (bulk op-1)')).length;
  }

  async create(command: 'resubmit' | 'cancel', filter: Record<string, unknown>): Promise<BulkOperationDocument> {
    const outcome = await this.service.create(BulkOperationRequest.parse({ command, filter, reason: 'remote fixed' }), 'alice');
    if (outcome.kind !== 'created') throw new Error(`expected created, got ${outcome.kind}`);
    return outcome.operation;
  }

  async operation(): Promise<BulkOperationDocument> {
    const op = await this.operations.get('op-1');
    if (!op) throw new Error('no operation op-1');
    return op;
  }
}

const IDS = ['p-1', 'p-2', 'p-3', 'p-4', 'p-5'];

async function errorProcesses(h: Harness): Promise<void> {
  for (const id of IDS) {
    await h.submit(id);
    await h.driveToError(id);
  }
}

// --- tests ---

describe('BulkRunner', () => {
  it('resubmits every matching process once, page by page, through the operator command path', async () => {
    const h = new Harness();
    await errorProcesses(h);
    await h.submit('p-6'); // Pending: not selected
    const created = await h.create('resubmit', { state: 'Error' });
    expect(created.expected).toBe(5);

    await h.runner('scheduler-a').poll();

    for (const id of IDS) {
      expect(await h.doc(id)).toMatchObject({ state: 'Pending', reason: 'resubmitted by alice (bulk op-1): remote fixed' });
      expect(await h.bulkResubmits(id)).toBe(1);
    }
    expect((await h.doc('p-6')).state).toBe('Pending');
    expect(await h.operation()).toMatchObject({
      state: 'Finished',
      cursor: 'p-6',
      runner: 'scheduler-a',
      progress: { examined: 6, matched: 5, done: 5, refused: 0, failed: 0 },
    });
  });

  describe('when the runner dies in the middle of a page', () => {
    it('is resumed by another runner after the lease lapses, and no process is acted on twice, even one that failed again meanwhile', async () => {
      const h = new Harness();
      await errorProcesses(h);
      await h.create('resubmit', { state: 'Error' });
      // Runner A acts on p-1, p-2 (page 1, committed), then p-3, and dies acting on p-4: page 2 is never committed.
      const dead = gate();
      let calls = 0;
      const a = h.runner('scheduler-a', async (c) => {
        calls += 1;
        if (calls === 4) await dead.promise;
        return h.handler.handle(c);
      });
      void a.poll();
      await waitUntil(async () => (await h.doc('p-3')).state === 'Pending');
      expect((await h.operation()).cursor).toBe('p-2');
      // p-3, resubmitted by the operation, fails again before anyone re-runs its page.
      await h.driveToError('p-3');

      const b = h.runner('scheduler-b');
      await b.poll();
      expect((await h.operation()).state).toBe('Running'); // A's lease still holds: B did nothing
      expect(await h.bulkResubmits('p-4')).toBe(0);

      h.clock.t += LEASE_TTL_MS + 1;
      await b.poll();

      for (const id of IDS) expect(await h.bulkResubmits(id)).toBe(1);
      expect((await h.doc('p-3')).state).toBe('Error');
      expect(await h.operation()).toMatchObject({ state: 'Finished', runner: 'scheduler-b', progress: { matched: 5, done: 5, refused: 0, failed: 0 } });
      expect(b.metrics().processes.resubmit.done).toBe(3); // p-3 (a repeat, answered as before), p-4, p-5
    });
  });

  describe('when a paused runner wakes up after another took its operation over', () => {
    it('cannot commit its page: the operation counts every process once', async () => {
      const h = new Harness();
      await errorProcesses(h);
      await h.create('resubmit', { state: 'Error' });
      const paused = gate();
      let commits = 0;
      const pausingStore: BulkOperationStore = {
        insert: (op) => h.operations.insert(op),
        get: (id) => h.operations.get(id),
        list: (n) => h.operations.list(n),
        findRunning: (n) => h.operations.findRunning(n),
        commit: async (next, expected) => {
          commits += 1;
          if (commits === 2) await paused.promise; // A stalls before committing its second page
          return h.operations.commit(next, expected);
        },
      };
      const a = h.runner('scheduler-a', (c) => h.handler.handle(c), pausingStore);
      const aPoll = a.poll();
      await waitUntil(async () => commits === 2);
      h.clock.t += LEASE_TTL_MS + 1;
      await h.runner('scheduler-b').poll();
      expect((await h.operation()).state).toBe('Finished');

      paused.open();
      await aPoll;

      expect(a.metrics().lostPages).toBe(1);
      for (const id of IDS) expect(await h.bulkResubmits(id)).toBe(1);
      expect((await h.operation()).progress).toEqual({ examined: 5, matched: 5, done: 5, refused: 0, failed: 0 });
    });
  });

  it('judges each process when it reaches it, and leaves out processes created after the operation', async () => {
    const h = new Harness();
    await errorProcesses(h);
    await h.create('cancel', { state: 'Error' });
    await h.handler.handle({ schemaVersion: 1, command: 'resubmit', processId: 'p-2', by: 'bob' }); // no longer Error
    h.clock.t += 1;
    await h.submit('p-7');
    await h.driveToError('p-7'); // Error, but newer than the operation

    await h.runner('scheduler-a').poll();

    expect((await h.doc('p-2')).state).toBe('Pending');
    expect((await h.doc('p-7')).state).toBe('Error');
    for (const id of ['p-1', 'p-3', 'p-4', 'p-5']) expect((await h.doc(id)).reason).toBe('canceled by alice (bulk op-1): remote fixed');
    expect((await h.operation()).progress).toMatchObject({ matched: 4, done: 4 });
  });

  it('counts a process whose command keeps throwing as failed, with the reason, and goes on', async () => {
    const h = new Harness();
    await errorProcesses(h);
    await h.create('resubmit', { state: 'Error' });
    const runner = h.runner('scheduler-a', async (c) => {
      if (c.processId === 'p-2') throw new Error('process p-2 kept changing; the command will be retried');
      return h.handler.handle(c);
    });
    await runner.poll();
    expect(await h.operation()).toMatchObject({
      state: 'Finished',
      progress: { matched: 5, done: 4, failed: 1 },
      problems: [{ processId: 'p-2', outcome: 'failed', message: 'process p-2 kept changing; the command will be retried' }],
    });
    expect(runner.metrics().processes.resubmit).toEqual({ done: 4, refused: 0, failed: 1 });
  });

  it('gives the lease up when the operation is finished', async () => {
    const h = new Harness();
    await errorProcesses(h);
    await h.create('resubmit', { state: 'Error' });
    await h.runner('scheduler-a').poll();
    await expect(h.lease.acquire(bulkLeaseName('op-1'), 'someone-else', new Date(h.clock.t), 1000)).resolves.toBe(true);
  });
});

describe('BulkOperationService', () => {
  it('returns the existing operation for a repeated id, and refuses the id for a different request', async () => {
    const h = new Harness();
    await errorProcesses(h);
    const request = BulkOperationRequest.parse({ id: 'ops-42', command: 'resubmit', filter: { state: 'Error' }, reason: 'remote fixed' });
    const first = await h.service.create(request, 'alice');
    const again = await h.service.create(request, 'alice');
    expect(first.kind).toBe('created');
    expect(again).toMatchObject({ kind: 'existing', operation: { _id: 'ops-42' } });
    const other = await h.service.create({ ...request, reason: 'something else' }, 'alice');
    expect(other).toMatchObject({ kind: 'conflict', message: 'bulk operation ops-42 exists with a different command, filter or reason; choose another id, or leave id out to get a new one' });
    expect(await h.operations.list(10)).toHaveLength(1);
  });

  it('counts the matches of a dry run and creates nothing', async () => {
    const h = new Harness();
    await errorProcesses(h);
    await expect(h.service.create(BulkOperationRequest.parse({ command: 'cancel', filter: { state: 'Error', failedStep: 'reserve-inventory' }, reason: 'r', dryRun: true }), 'alice')).resolves.toEqual({ kind: 'dry-run', matched: 5 });
    expect(await h.operations.list(10)).toHaveLength(0);
  });
});

/** Waits for a condition the runner reaches on its own (its steps are promise hops, no timers). */
async function waitUntil(condition: () => Promise<boolean>, deadlineMs = 5000): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('condition not reached before the deadline');
    await new Promise((resolve) => setImmediate(resolve));
  }
}
