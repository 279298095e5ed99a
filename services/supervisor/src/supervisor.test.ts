import { QueueNames, type Alert, type ProcessDocument } from '@sas/contracts';
import { ProcessEngine, type Outbox, type OutboxSendOptions } from '@sas/engine';
import { InMemoryProcessStore } from '@sas/store';
import {
  WorkflowRegistry,
  builtInWorkflows,
  createProcess,
  orderFulfilmentManualV1,
  orderFulfilmentV1,
  type WorkflowDefinition,
} from '@sas/workflow';
import { pino } from 'pino';
import type { SweepLease } from './sweep-lease';
import { Supervisor } from './supervisor';

// --- harness (kept in the test file on purpose: test helpers must not reach the package build) ---

const T0 = Date.UTC(2030, 0, 1);
const COMPLETE_BY_MS = 5000;
const SWEEP_INTERVAL_MS = 1000;
const logger = pino({ level: 'silent' });

/** The lease of `LeaseRepository`, in memory: one holder until it expires or gives the lease up. */
class InMemorySweepLease implements SweepLease {
  private readonly leases = new Map<string, { holder: string; expiresAt: number }>();

  async acquire(name: string, holder: string, now: Date, ttlMs: number): Promise<boolean> {
    const current = this.leases.get(name);
    if (current && current.holder !== holder && current.expiresAt > now.getTime()) return false;
    this.leases.set(name, { holder, expiresAt: now.getTime() + ttlMs });
    return true;
  }

  async release(name: string, holder: string): Promise<void> {
    if (this.leases.get(name)?.holder === holder) this.leases.delete(name);
  }
}

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

  to(queue: string): unknown[] {
    return this.sent.filter((s) => s.queue === queue).map((s) => s.message);
  }
}

class Harness {
  t = T0;
  readonly clock = { now: (): number => this.t };
  readonly outbox = new RecordingOutbox();
  readonly store = new InMemoryProcessStore();
  readonly lease = new InMemorySweepLease();
  private readonly registry = new WorkflowRegistry(builtInWorkflows);
  private readonly supervisors: Supervisor[] = [];

  engine(who: string): ProcessEngine {
    const { store, outbox, registry, clock } = this;
    return new ProcessEngine({
      store,
      outbox,
      registry,
      clock,
      who,
      replyQueue: QueueNames.schedulerReplies,
      logger,
    });
  }

  supervisor(instanceId: string, lease: SweepLease = this.lease): Supervisor {
    const { store, clock } = this;
    const engine = this.engine(instanceId);
    const supervisor = new Supervisor({
      engine,
      store,
      lease,
      clock,
      instanceId,
      logger,
      sweepIntervalMs: SWEEP_INTERVAL_MS,
    });
    this.supervisors.push(supervisor);
    return supervisor;
  }

  /** Inserts p-1 and has a scheduler claim it, so it holds its first step until complete-by. */
  async held(workflow: WorkflowDefinition = orderFulfilmentV1): Promise<ProcessDocument> {
    const doc = createProcess({
      processId: 'p-1',
      orderId: 'o-1',
      payload: {},
      replyTo: 'app.status',
      workflow,
      now: this.t,
    });
    await this.store.insert(doc);
    return this.claim();
  }

  /** A scheduler's claim: after a recovery it makes the process held once more. */
  async claim(): Promise<ProcessDocument> {
    const outcome = await this.engine('scheduler-1').apply('p-1', { type: 'claim' });
    if (outcome.kind !== 'applied') throw new Error(`claim did not apply: ${JSON.stringify(outcome)}`);
    return outcome.process;
  }

  async doc(): Promise<ProcessDocument> {
    const doc = await this.store.get('p-1');
    if (!doc) throw new Error('process p-1 is not in the store');
    return doc;
  }

  closeAll(): Promise<unknown> {
    return Promise.all(this.supervisors.map((s) => s.close()));
  }
}
// --- tests ---

describe('Supervisor recovering an expired process', () => {
  let h: Harness;
  beforeEach(() => {
    h = new Harness();
  });
  afterEach(() => h.closeAll());

  it('delivers an outbox that a crashed writer left behind, once it is older than the grace period', async () => {
    const held = await h.held();
    const owed = [{ kind: 'message' as const, id: 'p-1.1.0', queue: 'app.status', message: { status: 'Processing' } }];
    // As if the scheduler committed the claim and died before delivering: the outbox is still full.
    // completeBy is far ahead, so only the outbox sweep (not a recovery) can deliver it.
    await h.store.commit({ ...held, revision: held.revision + 1, outbox: owed, completeBy: new Date(T0 + 60_000) }, held.revision);
    const supervisor = h.supervisor('supervisor-a');
    const before = h.outbox.sent.length;
    expect(await supervisor.sweep()).toMatchObject({ delivered: 0 });
    h.t += 5000;
    expect(await supervisor.sweep()).toMatchObject({ delivered: 1 });
    expect(h.outbox.sent.slice(before)).toEqual([
      { queue: 'app.status', message: { status: 'Processing' }, options: { jobId: 'p-1.1.0' } },
    ]);
    expect((await h.doc()).outbox).toEqual([]);
  });

  it('skips a process whose workflow version is not deployed and still recovers the others', async () => {
    await h.held();
    const held = await h.doc();
    // The same held process, but from a workflow version this build does not have, expired earlier.
    await h.store.insert({ ...held, _id: 'p-poison', orderId: 'o-poison', workflowVersion: 99, completeBy: new Date(h.t) });
    h.t += COMPLETE_BY_MS;
    const report = await h.supervisor('supervisor-a').sweep();
    expect(report).toMatchObject({ leader: true, recovered: 1, skipped: 1 });
    expect(await h.doc()).toMatchObject({ state: 'Pending', failureCount: 1 });
    expect(await h.store.get('p-poison')).toMatchObject({ state: 'Processing', failureCount: 0 });
  });

  it('below the threshold releases it for another attempt with a wake-up and no alert', async () => {
    await h.held();
    h.t += COMPLETE_BY_MS;
    await h.supervisor('supervisor-a').sweep();

    expect(await h.doc()).toMatchObject({
      state: 'Pending',
      mode: 'forward',
      failureCount: 1,
      reason: 'reserve-inventory: complete-by passed',
    });
    expect(h.outbox.to(QueueNames.schedulerReady)).toEqual([
      { schemaVersion: 1, processId: 'p-1', reason: 'released' },
    ]);
    expect(h.outbox.to(QueueNames.alerts)).toEqual([]);
  });

  it('at the threshold of an error-policy workflow puts it in Error and alerts an operator', async () => {
    const supervisor = h.supervisor('supervisor-a');
    await h.held(orderFulfilmentManualV1);
    for (let i = 1; i <= orderFulfilmentManualV1.failureThreshold; i++) {
      if (i > 1) await h.claim();
      h.t += COMPLETE_BY_MS;
      expect(await supervisor.sweep()).toMatchObject({ recovered: 1 });
    }

    expect(await h.doc()).toMatchObject({ state: 'Error', failureCount: 3, lockedBy: null });
    const alerts = h.outbox.to(QueueNames.alerts) as Alert[];
    expect(alerts).toEqual([
      expect.objectContaining({
        kind: 'ThresholdReached',
        processId: 'p-1',
        failureCount: 3,
        reason: expect.stringContaining('process is in Error: resubmit or cancel it'),
      }),
    ]);
    expect(supervisor.metrics()).toMatchObject({ recovered: 3 });
  });

  it('at the threshold of a compensate-policy workflow alerts and hands the undo to a scheduler', async () => {
    const supervisor = h.supervisor('supervisor-a');
    await h.held(orderFulfilmentV1);
    for (let i = 1; i <= orderFulfilmentV1.failureThreshold; i++) {
      if (i > 1) await h.claim();
      h.t += COMPLETE_BY_MS;
      await supervisor.sweep();
    }

    expect(await h.doc()).toMatchObject({ state: 'Pending', mode: 'compensate', failureCount: 0 });
    expect(h.outbox.to(QueueNames.alerts)).toEqual([
      expect.objectContaining({
        kind: 'ThresholdReached',
        failureCount: 3,
        reason: expect.stringContaining('compensating'),
      }),
    ]);
    // The supervisor only decides; nothing goes to an agent from it.
    expect(
      h.outbox.sent
        .filter((s) => s.queue.startsWith('agent.'))
        .map((s) => (s.message as { attempt: number }).attempt),
    ).toEqual([1, 3, 5]);
  });
});
