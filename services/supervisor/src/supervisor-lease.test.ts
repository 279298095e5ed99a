import { QueueNames, type ProcessDocument } from '@sas/contracts';
import { ProcessEngine, type Outbox, type OutboxSendOptions } from '@sas/engine';
import { InMemoryProcessStore } from '@sas/store';
import {
  WorkflowRegistry,
  builtInWorkflows,
  createProcess,
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

/** A lease every supervisor holds at once: only the conditional writes keep recoveries single. */
const everyoneLeads: SweepLease = { acquire: async () => true, release: async () => undefined };

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

describe('Supervisor with a standby sharing its store and lease', () => {
  let h: Harness;
  beforeEach(() => {
    h = new Harness();
  });
  afterEach(() => h.closeAll());

  it('lets only the lease holder sweep, and recovers an expired process once', async () => {
    const held = await h.held();
    h.t += COMPLETE_BY_MS;
    const [a, b] = await Promise.all([
      h.supervisor('supervisor-a').sweep(),
      h.supervisor('supervisor-b').sweep(),
    ]);

    expect(a).toEqual({ leader: true, recovered: 1, skipped: 0, delivered: 0 });
    expect(b).toEqual({ leader: false, recovered: 0, skipped: 0, delivered: 0 });
    expect(await h.doc()).toMatchObject({
      state: 'Pending',
      failureCount: 1,
      attempt: held.attempt + 1,
      lockedBy: null,
    });
    expect((await h.store.history('p-1')).map((e) => e.who)).toEqual(['scheduler-1', 'supervisor-a']);
  });

  it('leaves a process alone while its complete-by has not passed', async () => {
    const held = await h.held();
    h.t += COMPLETE_BY_MS - 1;

    expect(await h.supervisor('supervisor-a').sweep()).toEqual({ leader: true, recovered: 0, skipped: 0, delivered: 0 });
    expect(await h.doc()).toEqual(held);
  });

  it('hands the sweep to the standby at once when the holder closes', async () => {
    const a = h.supervisor('supervisor-a');
    const b = h.supervisor('supervisor-b');
    expect((await a.sweep()).leader).toBe(true);
    expect((await b.sweep()).leader).toBe(false);
    await a.close();
    await h.held();
    h.t += COMPLETE_BY_MS;

    expect(await a.sweep()).toEqual({ leader: false, recovered: 0, skipped: 0, delivered: 0 });
    expect(await b.sweep()).toEqual({ leader: true, recovered: 1, skipped: 0, delivered: 0 });
    expect(b.metrics()).toMatchObject({ leader: 1, recovered: 1 });
  });

  it('lets the standby take over once a crashed holder’s lease expires', async () => {
    const a = h.supervisor('supervisor-a');
    const b = h.supervisor('supervisor-b');
    await a.sweep();
    // supervisor-a stops sweeping without closing, as a crash would; its lease lasts 3 sweep intervals.
    h.t += 3 * SWEEP_INTERVAL_MS - 1;
    expect((await b.sweep()).leader).toBe(false);
    h.t += 1;
    expect((await b.sweep()).leader).toBe(true);
  });

  it('recovers an expired process once even when two supervisors both believe they lead', async () => {
    await h.held();
    h.t += COMPLETE_BY_MS;
    const reports = await Promise.all([
      h.supervisor('supervisor-a', everyoneLeads).sweep(),
      h.supervisor('supervisor-b', everyoneLeads).sweep(),
    ]);

    expect(reports.map((r) => r.recovered).sort()).toEqual([0, 1]);
    expect(reports.map((r) => r.skipped).sort()).toEqual([0, 1]);
    expect(await h.doc()).toMatchObject({ state: 'Pending', failureCount: 1, attempt: 2 });
    expect(await h.store.history('p-1')).toHaveLength(2);
  });
});

describe('Supervisor closing', () => {
  let h: Harness;
  beforeEach(() => {
    h = new Harness();
  });
  afterEach(() => h.closeAll());

  it('gives the lease up before any close() call resolves, a repeated one included', async () => {
    const released: string[] = [];
    const slowLease: SweepLease = {
      acquire: (name, holder, now, ttlMs) => h.lease.acquire(name, holder, now, ttlMs),
      // Releasing takes a round trip, as it does against MongoDB.
      release: async (name, holder) => {
        await new Promise((resolve) => setImmediate(resolve));
        await h.lease.release(name, holder);
        released.push(holder);
      },
    };
    const supervisor = h.supervisor('supervisor-a', slowLease);
    await supervisor.sweep();
    const first = supervisor.close();
    await supervisor.close();

    expect(released).toEqual(['supervisor-a']);
    await first;
    expect(released).toEqual(['supervisor-a']);
  });

  it('does nothing once closed', async () => {
    await h.held();
    const supervisor = h.supervisor('supervisor-a');
    await supervisor.close();
    h.t += COMPLETE_BY_MS;

    expect(await supervisor.sweep()).toEqual({ leader: false, recovered: 0, skipped: 0, delivered: 0 });
    expect(await h.doc()).toMatchObject({ state: 'Processing' });
  });
});
