import { QueueNames, type AgentReply, type AgentRequest, type ProcessDocument, type StatusEvent } from '@sas/contracts';
import { ProcessEngine } from '@sas/engine';
import { InMemoryProcessStore } from '@sas/store';
import { dedupKey, FAULT_TIMINGS, FaultInjector, ManualClock, numberedCalls, RecordingOutbox, type SentMessage } from '@sas/testkit';
import { WorkflowRegistry, builtInWorkflows, createProcess, orderFulfilmentV1 } from '@sas/workflow';
import { pino } from 'pino';
import { Scheduler } from './scheduler';

// "This call fails once" at every call a scheduler makes while claiming and while applying a
// reply, then its own retry paths: the next poll (`claimAvailable`), BullMQ's redelivery of a
// reply whose handler threw, and the supervisor's delivery of owed outboxes. Helpers stay in the
// file: test code must not reach the package build.

const T0 = Date.UTC(2030, 0, 1);
const POLL_MS = 1000;
/** How often the consumer redelivers a reply whose handler keeps throwing, in these tests. */
const DELIVERIES = 3;
const logger = pino({ level: 'silent' });

class World {
  readonly faults = new FaultInjector();
  readonly clock = new ManualClock(T0);
  readonly store = new InMemoryProcessStore();
  readonly outbox = new RecordingOutbox();
  readonly scheduler: Scheduler;
  private readonly registry = new WorkflowRegistry(builtInWorkflows);

  constructor(afterwards = false) {
    const store = this.faults.wrap(this.store, { afterwards });
    const outbox = this.faults.wrap(this.outbox, { afterwards });
    const engine = this.engine('scheduler-1', store, outbox);
    this.scheduler = new Scheduler({ engine, store, clock: this.clock, logger, pollIntervalMs: 0 });
  }

  /** An engine on the raw store and outbox: the setup, and the other services, see no fault. */
  engine(who: string, store = this.store, outbox: RecordingOutbox = this.outbox): ProcessEngine {
    const { registry, clock } = this;
    return new ProcessEngine({ store, outbox, registry, clock, who, replyQueue: QueueNames.schedulerReplies, logger });
  }

  async submit(): Promise<void> {
    const doc = createProcess({ processId: 'p-1', orderId: 'order-1', payload: {}, replyTo: 'app.status', workflow: orderFulfilmentV1, now: this.clock.t });
    await this.store.insert(doc);
  }

  async doc(): Promise<ProcessDocument> {
    const doc = await this.store.get('p-1');
    if (!doc) throw new Error('process p-1 is not in the store');
    return doc;
  }

  /** The request the held step was last dispatched with. */
  lastRequest(): AgentRequest {
    const request = this.outbox.sent.filter((s) => s.queue.startsWith('agent.')).at(-1)?.message as AgentRequest | undefined;
    if (!request) throw new Error('no agent request was sent');
    return request;
  }

  /** As the BullMQ consumer of `scheduler.replies`: a handler that throws gets the reply again. */
  async deliverReply(reply: AgentReply): Promise<void> {
    for (let delivery = 1; ; delivery++) {
      try {
        await this.scheduler.onReply(reply);
        return;
      } catch (e) {
        if (delivery >= DELIVERIES) throw e;
      }
    }
  }

  /** Two more polls, well inside complete-by, then the supervisor's delivery of owed outboxes. */
  async pollAndSettle(): Promise<void> {
    for (let i = 0; i < 2; i++) {
      this.clock.t += POLL_MS;
      await this.scheduler.claimAvailable();
    }
    const engine = this.engine('supervisor-1');
    for (const doc of await this.store.findUndelivered(new Date(this.clock.t), 0)) await engine.deliverOutbox(doc);
  }
}

function reply(request: AgentRequest, at: number, outcome: 'ok' | 'permanent' | 'parked'): AgentReply {
  const { processId, step, stepIndex, mode, attempt, agent } = request;
  const base = { schemaVersion: 1 as const, processId, step, stepIndex, mode, attempt, agent, agentInstance: `${agent}-1`, at };
  if (outcome === 'ok') return { ...base, outcome: 'ok', result: { step } };
  if (outcome === 'parked') return { ...base, outcome: 'parked', retryAfterMs: 30_000, reason: 'circuit open' };
  return { ...base, outcome: 'error', errorKind: 'permanent', message: 'card declined' };
}

/** The key a queue or an application dedupes a send on: eventId, else job id; else it is unique. */
/** Sends of one queue family, one per key; throws when one key was sent with two different bodies. */
function distinct(sent: readonly SentMessage[]): unknown[] {
  const byKey = new Map<string, unknown>();
  sent.forEach((s, i) => {
    const key = dedupKey(s, i);
    if (byKey.has(key)) expect(s.message).toEqual(byKey.get(key));
    else byKey.set(key, s.message);
  });
  return [...byKey.values()];
}

/**
 * What the run achieved, leaving out what a correct fix may legitimately change (attempt numbers,
 * an extra release and claim of a step whose dispatch was lost, its extra Processing status).
 */
async function progress(w: World): Promise<Record<string, unknown>> {
  const doc = await w.doc();
  const statuses = distinct(w.outbox.to('app.status'))
    .map((m) => m as StatusEvent)
    .filter((e) => e.status !== 'Processing')
    .map((e) => `${e.status}${e.step ? `:${e.step}` : ''}`)
    .sort();
  // What replies did: every transition out of a held state except a release back to Pending.
  const effects = (await w.store.history('p-1'))
    .filter((e) => (e.from === 'Processing' || e.from === 'Compensating') && e.to !== 'Pending')
    .map((e) => `${e.from}->${e.to}@${e.step}`);
  const { state, mode, currentStep, failureCount } = doc;
  // History may stay owed in the document (decision 62; `effects` reads it there too); messages may not.
  const owedMessages = (doc.outbox ?? []).filter((e) => e.kind === 'message');
  return { state, mode, currentStep, failureCount, steps: doc.steps.map((s) => s.state), statuses, effects, owedMessages };
}

/** A held step has been sent to its agent for the attempt that holds it, once: it is not waiting for complete-by. */
async function expectHeldStepDispatched(w: World): Promise<void> {
  const doc = await w.doc();
  const requests = distinct(w.outbox.sent.filter((s) => s.queue.startsWith('agent.'))) as AgentRequest[];
  if (doc.state !== 'Processing' && doc.state !== 'Compensating') return;
  const current = requests.filter((r) => r.attempt === doc.attempt);
  expect(current).toEqual([expect.objectContaining({ step: doc.steps[doc.currentStep]?.name, mode: doc.mode, attempt: doc.attempt })]);
  expect(doc.completeBy?.getTime()).toBeGreaterThan(w.clock.t);
}

/**
 * One Processing status for the order, however often its first step was claimed: a redelivered
 * claim, or a re-claim after a dispatch that could not be sent, does not tell the application twice.
 */
async function expectOneProcessingStatus(w: World): Promise<void> {
  const claims = (await w.store.history('p-1')).filter((e) => e.from === 'Pending' && e.to === 'Processing');
  const processing = distinct(w.outbox.to('app.status')).filter((m) => (m as StatusEvent).status === 'Processing');
  expect(processing).toHaveLength(claims.length > 0 ? 1 : 0);
}

/** Every call of one clean claim round on one claimable process; each gets its fault test. */
/** History waits in the document until the process finishes (decision 62): only the last step records it. */
const CLAIM_CALLS = ['findClaimable', 'get', 'commit', 'send', 'send', 'clearOutbox'];

async function claimScenario(afterwards: boolean, n?: number): Promise<World> {
  const w = new World(afterwards);
  await w.submit();
  if (n !== undefined) w.faults.failOnce(n);
  await w.scheduler.claimAvailable();
  return w;
}

describe('Scheduler claim round when one call fails once', () => {
  let clean: Record<string, unknown>;
  beforeAll(async () => {
    const w = await claimScenario(false);
    expect(w.faults.calls.map((c) => c.method)).toEqual(CLAIM_CALLS);
    await w.pollAndSettle();
    clean = await progress(w);
  });

  it('makes exactly the calls the fault table covers (update CLAIM_CALLS when this changes)', async () => {
    const w = await claimScenario(false);
    expect(w.faults.calls.map((c) => c.method)).toEqual(CLAIM_CALLS);
  });

  describe.each(FAULT_TIMINGS)('the call failing %s', (_kind, afterwards) => {
    it.each(numberedCalls(CLAIM_CALLS))('call %i (%s): dispatched once for the held attempt, no failure counted', async (n) => {
      const w = await claimScenario(afterwards, n);
      await w.pollAndSettle();
      expect(await progress(w)).toEqual(clean);
      await expectHeldStepDispatched(w);
      await expectOneProcessingStatus(w);
    });
  });
});

/** Replies applied by `onReply`, each after the setup that makes it current, with its clean call trace. */
const REPLIES = [
  { name: 'ok for the first step', before: [] as const, outcome: 'ok' as const, calls: ['get', 'commit', 'send', 'send', 'clearOutbox'] },
  { name: 'ok for the last step', before: ['ok', 'ok'] as const, outcome: 'ok' as const, calls: ['get', 'commit', 'appendEvents', 'send', 'send', 'clearOutbox'] },
  {
    name: 'permanent error for the second step (compensation starts)',
    before: ['ok'] as const,
    outcome: 'permanent' as const,
    calls: ['get', 'commit', 'send', 'send', 'clearOutbox'],
  },
  // Parked: back to Pending and a wake-up, no message owed, so its history waits in the document (decision 62).
  { name: 'parked for the first step (circuit open)', before: [] as const, outcome: 'parked' as const, calls: ['get', 'commit', 'send'] },
];

type ReplyCase = (typeof REPLIES)[number];

async function replyScenario(c: ReplyCase, afterwards: boolean, n?: number): Promise<World> {
  const w = new World(afterwards);
  await w.submit();
  const setup = w.engine('scheduler-1');
  await setup.apply('p-1', { type: 'claim' });
  for (const outcome of c.before) {
    w.clock.t += 100;
    await setup.apply('p-1', { type: 'reply', reply: reply(w.lastRequest(), w.clock.t, outcome) });
  }
  const request = w.lastRequest();
  w.outbox.clear();
  w.clock.t += 100;
  if (n !== undefined) w.faults.failOnce(n);
  await w.deliverReply(reply(request, w.clock.t, c.outcome));
  return w;
}

describe.each(REPLIES)('Scheduler.onReply with a reply $name when one call fails once', (c) => {
  let clean: Record<string, unknown>;
  beforeAll(async () => {
    const w = await replyScenario(c, false);
    await w.pollAndSettle();
    clean = await progress(w);
  });

  it('makes exactly the calls the fault table covers (update REPLIES when this changes)', async () => {
    const w = await replyScenario(c, false);
    expect(w.faults.calls.map((x) => x.method)).toEqual(c.calls);
  });

  describe.each(FAULT_TIMINGS)('the call failing %s, then the reply redelivered', (_kind, afterwards) => {
    it.each(numberedCalls(c.calls))('call %i (%s): applied once, the step it holds dispatched once, statuses not doubled', async (n) => {
      const w = await replyScenario(c, afterwards, n);
      await w.pollAndSettle();
      expect(await progress(w)).toEqual(clean);
      await expectHeldStepDispatched(w);
    });
  });
});
