import { QueueNames, type AgentReply, type AgentRequest, type ProcessDocument } from '@sas/contracts';
import { ProcessEngine } from '@sas/engine';
import { InMemoryProcessStore } from '@sas/store';
import { InMemoryLease } from '@sas/store';
import { dedupKey, FAULT_TIMINGS, FaultInjector, ManualClock, numberedCalls, RecordingOutbox } from '@sas/testkit';
import {
  WorkflowRegistry,
  builtInWorkflows,
  createProcess,
  orderFulfilmentManualV1,
  orderFulfilmentV1,
  type WorkflowDefinition,
} from '@sas/workflow';
import { pino } from 'pino';
import { Supervisor } from './supervisor';
import { SWEEP_INTERVAL_MS, T0 } from './test-support/supervisor-harness';

// "This call fails once" at every call a supervisor's sweep makes (lease, store, outbox), then its
// own retry path: the next sweeps. Each expiry must be recovered exactly once, never skipped for
// ever, and what the recovery owes the world delivered once.

/** The sweep's default grace before it delivers an outbox a writer left behind. */
const OUTBOX_GRACE_MS = 5000;
const logger = pino({ level: 'silent' });

class World {
  readonly faults = new FaultInjector();
  readonly clock = new ManualClock(T0);
  readonly store = new InMemoryProcessStore();
  readonly outbox = new RecordingOutbox();
  readonly supervisor: Supervisor;
  private readonly registry = new WorkflowRegistry(builtInWorkflows);

  constructor(afterwards = false) {
    const store = this.faults.wrap(this.store, { afterwards });
    const outbox = this.faults.wrap(this.outbox, { afterwards });
    const lease = this.faults.wrap(new InMemoryLease(), { afterwards });
    const engine = this.engine('supervisor-a', store, outbox);
    const { clock } = this;
    this.supervisor = new Supervisor({ engine, store, lease, clock, instanceId: 'supervisor-a', logger, sweepIntervalMs: SWEEP_INTERVAL_MS });
  }

  /** An engine on the raw store and outbox: the setup, and the other services, see no fault. */
  engine(who: string, store = this.store, outbox: RecordingOutbox = this.outbox): ProcessEngine {
    const { registry, clock } = this;
    return new ProcessEngine({ store, outbox, registry, clock, who, replyQueue: QueueNames.schedulerReplies, logger });
  }

  async submit(workflow: WorkflowDefinition): Promise<void> {
    const doc = createProcess({ processId: 'p-1', orderId: 'order-1', payload: {}, replyTo: 'app.status', workflow, now: this.clock.t });
    await this.store.insert(doc);
  }

  /** A scheduler claims p-1 and the clock passes its complete-by. */
  async claimAndExpire(): Promise<void> {
    const claimed = await this.engine('scheduler-1').apply('p-1', { type: 'claim' });
    if (claimed.kind !== 'applied') throw new Error(`claim did not apply: ${JSON.stringify(claimed)}`);
    this.clock.t = (await this.doc()).completeBy?.getTime() ?? this.clock.t;
  }

  async doc(): Promise<ProcessDocument> {
    const doc = await this.store.get('p-1');
    if (!doc) throw new Error('process p-1 is not in the store');
    return doc;
  }

  /** The next sweeps: two on the timer, then one past the outbox grace. */
  async laterSweeps(): Promise<void> {
    for (const step of [SWEEP_INTERVAL_MS, SWEEP_INTERVAL_MS, OUTBOX_GRACE_MS]) {
      this.clock.t += step;
      await this.supervisor.sweep();
    }
  }
}

/**
 * Status events and alerts as their receivers see them: one per id, without the time (a later
 * sweep is later), queue by queue (each queue in the order it received them; the two queues'
 * receivers are unrelated, so their interleaving is not part of it).
 */
function delivered(outbox: RecordingOutbox): unknown[] {
  const sent = [QueueNames.alerts, 'app.status'].flatMap((queue) => outbox.sent.filter((s) => s.queue === queue));
  return [
    ...new Map(
      sent.map((s, i) => {
        const { at: _at, ...body } = s.message as { at?: number };
        return [dedupKey(s, i), [s.queue, body]];
      }),
    ).values(),
  ];
}

/** What the sweeps did to p-1 and told the world. */
async function effect(w: World): Promise<Record<string, unknown>> {
  const doc = await w.doc();
  const { state, mode, attempt, failureCount, currentStep, lockedBy, outbox } = doc;
  // History (delivered or still owed in the outbox, decision 62) once each; no message left owed.
  const history = (await w.store.history('p-1')).map((e) => `${e.who}: ${e.from}->${e.to}: ${e.why}`);
  const owedMessages = (outbox ?? []).filter((e) => e.kind === 'message');
  return { state, mode, attempt, failureCount, currentStep, lockedBy, owedMessages, history, delivered: delivered(w.outbox) };
}

/** Expired processes a sweep recovers, each with the clean sweep's call trace. */
const EXPIRIES = [
  {
    name: 'below the threshold (released for another attempt)',
    workflow: orderFulfilmentV1,
    expiriesBefore: 0,
    // Back to Pending owes no message: its history entry waits in the document (decision 62).
    calls: ['acquire', 'findExpired', 'get', 'commit', 'send', 'findUndelivered'],
  },
  {
    name: 'at the threshold of an error-policy workflow (Error and an alert)',
    workflow: orderFulfilmentManualV1,
    expiriesBefore: orderFulfilmentManualV1.failureThreshold - 1,
    calls: ['acquire', 'findExpired', 'get', 'commit', 'send', 'send', 'clearOutbox', 'findUndelivered'],
  },
];

type ExpiryCase = (typeof EXPIRIES)[number];

async function expiryScenario(c: ExpiryCase, afterwards: boolean, n?: number): Promise<World> {
  const w = new World(afterwards);
  await w.submit(c.workflow);
  const other = w.engine('supervisor-b');
  for (let i = 0; i < c.expiriesBefore; i++) {
    await w.claimAndExpire();
    await other.apply('p-1', { type: 'expire' });
  }
  await w.claimAndExpire();
  w.outbox.clear();
  if (n !== undefined) w.faults.failOnce(n);
  await w.supervisor.sweep();
  return w;
}

describe.each(EXPIRIES)('Supervisor sweep of a process past complete-by, $name, when one call fails once', (c) => {
  let clean: Record<string, unknown>;
  beforeAll(async () => {
    const w = await expiryScenario(c, false);
    await w.laterSweeps();
    clean = await effect(w);
  });

  it('makes exactly the calls the fault table covers (update EXPIRIES when this changes)', async () => {
    const w = await expiryScenario(c, false);
    expect(w.faults.calls.map((x) => x.method)).toEqual(c.calls);
  });

  describe.each(FAULT_TIMINGS)('the call failing %s, then the next sweeps', (_kind, afterwards) => {
    it.each(numberedCalls(c.calls))('call %i (%s): recovered exactly once, failureCount up by one, delivered once', async (n) => {
      const w = await expiryScenario(c, afterwards, n);
      await w.laterSweeps();
      expect(await effect(w)).toEqual(clean);
      if ((await w.doc()).state === 'Pending') {
        // A scheduler learns of it: the wake-up, or at least its poll.
        const claimable = await w.store.findClaimable(new Date(w.clock.t), 0);
        const woken = w.outbox.messagesTo(QueueNames.schedulerReady).length > 0;
        expect(woken || claimable.some((d) => d._id === 'p-1')).toBe(true);
      }
    });

    if (c.workflow === orderFulfilmentV1) {
      it.each(numberedCalls(c.calls))('call %i (%s): the next expiry of the same process is recovered too', async (n) => {
        const w = await expiryScenario(c, afterwards, n);
        await w.laterSweeps();
        const { failureCount } = await w.doc();
        await w.claimAndExpire();
        await w.supervisor.sweep();
        expect(await w.doc()).toMatchObject({ state: 'Pending', failureCount: failureCount + 1 });
      });
    }
  });
});

/** The reply an agent sends when the last dispatched step succeeded. */
function okReplyToLast(w: World): AgentReply {
  const request = w.outbox.sent.filter((s) => s.queue.startsWith('agent.')).at(-1)?.message as AgentRequest | undefined;
  if (!request) throw new Error('no agent request was sent');
  const { processId, step, stepIndex, mode, attempt, agent } = request;
  return { schemaVersion: 1, processId, step, stepIndex, mode, attempt, agent, agentInstance: `${agent}-1`, at: w.clock.t, outcome: 'ok', result: {} };
}

/** A process whose last step's writer committed Processed and crashed before delivering its outbox. */
const OWED_CALLS = ['acquire', 'findExpired', 'findUndelivered', 'appendEvents', 'send', 'expireHistory', 'send', 'clearOutbox'];

async function owedScenario(afterwards: boolean, n?: number): Promise<World> {
  const w = new World(afterwards);
  await w.submit(orderFulfilmentV1);
  const scheduler = w.engine('scheduler-1');
  await scheduler.apply('p-1', { type: 'claim' });
  for (let step = 0; step < orderFulfilmentV1.steps.length; step++) {
    const reply = okReplyToLast(w);
    // The last reply is committed with what it owes, and the writer dies before delivering it.
    if (step === orderFulfilmentV1.steps.length - 1) w.outbox.failWith = new Error('scheduler crashed');
    await scheduler.apply('p-1', { type: 'reply', reply });
  }
  w.outbox.failWith = undefined;
  w.outbox.clear();
  w.clock.t += OUTBOX_GRACE_MS;
  if (n !== undefined) w.faults.failOnce(n);
  await w.supervisor.sweep();
  return w;
}

describe('Supervisor sweep delivering an outbox a crashed writer left behind, when one call fails once', () => {
  let clean: Record<string, unknown>;
  beforeAll(async () => {
    const w = await owedScenario(false);
    expect(await w.doc()).toMatchObject({ state: 'Processed', outbox: [] });
    expect(w.outbox.sent).toHaveLength(2);
    clean = await effect(w);
  });

  it('makes exactly the calls the fault table covers (update OWED_CALLS when this changes)', async () => {
    const w = await owedScenario(false);
    expect(w.faults.calls.map((x) => x.method)).toEqual(OWED_CALLS);
  });

  describe.each(FAULT_TIMINGS)('the call failing %s, then the next sweep', (_kind, afterwards) => {
    it.each(numberedCalls(OWED_CALLS))('call %i (%s): delivered once, recorded once, outbox emptied', async (n) => {
      const w = await owedScenario(afterwards, n);
      w.clock.t += SWEEP_INTERVAL_MS;
      await w.supervisor.sweep();
      expect(await effect(w)).toEqual(clean);
    });
  });
});
