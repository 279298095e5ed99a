import { QueueNames, type AgentRequest, type StatusEvent } from '@sas/contracts';
import { FAULT_TIMINGS, FaultInjector } from '@sas/testkit';
import { WorkflowRegistry, builtInWorkflows, orderFulfilmentManualV1, type ProcessInput } from '@sas/workflow';
import { ProcessEngine } from './process-engine';
import { agentRequests } from './test-support/agent-requests';
import { EngineHarness } from './test-support/engine-harness';
import { okReply } from './test-support/ok-reply';

// "This call fails once" at every call the engine makes over a whole order (claim, three replies),
// the caller retrying an input whose apply threw (BullMQ redelivers; the scheduler polls), then
// the supervisor's delivery of owed outboxes. The order must end as a clean run ends, with no
// input applied twice and nothing left waiting for complete-by.

const registry = new WorkflowRegistry(builtInWorkflows);

function faultyEngine(h: EngineHarness, faults: FaultInjector, afterwards: boolean): ProcessEngine {
  return new ProcessEngine({
    store: faults.wrap(h.store, { afterwards }),
    outbox: faults.wrap(h.outbox, { afterwards }),
    registry,
    clock: h.clock,
    who: 'scheduler-1',
    replyQueue: QueueNames.schedulerReplies,
    logger: h.log.logger,
  });
}

/** What a caller would apply next: a claim when Pending, the agent's answer to the held attempt's request. */
async function nextInput(h: EngineHarness, answered: Set<number>): Promise<ProcessInput | undefined> {
  const doc = await h.doc();
  if (doc.state === 'Pending') {
    // The schedulers' poll claims it once it is due (a dispatch that could not be sent is released for a second).
    h.clock.t = Math.max(h.clock.t, doc.notBefore.getTime());
    return { type: 'claim' };
  }
  if (doc.state !== 'Processing' || answered.has(doc.attempt)) return undefined;
  const request = agentRequests(h.outbox).find((r: AgentRequest) => r.attempt === doc.attempt);
  if (!request) return undefined; // never dispatched: nobody will answer before complete-by
  answered.add(doc.attempt);
  return { type: 'reply', reply: okReply(request, h.clock.t) };
}

/** Runs p-1 to its end, call `n` failing once; an input whose apply threw is applied again. */
async function runOrder(afterwards: boolean, n?: number): Promise<{ h: EngineHarness; faults: FaultInjector }> {
  const h = new EngineHarness();
  await h.submit();
  const faults = new FaultInjector();
  if (n !== undefined) faults.failOnce(n);
  const engine = faultyEngine(h, faults, afterwards);
  const answered = new Set<number>();
  let redeliver: ProcessInput | undefined;
  for (let round = 0, retries = 0; round < 20; round++) {
    const input = redeliver ?? (await nextInput(h, answered));
    if (!input) break;
    h.clock.t += 100;
    try {
      await engine.apply('p-1', input);
      redeliver = undefined;
    } catch (e) {
      if (++retries > 2) throw e;
      redeliver = input;
    }
  }
  // The supervisor's sweep delivers what a writer still owes.
  for (const doc of await h.store.findUndelivered(new Date(h.clock.t), 0)) await h.engine('supervisor-1').deliverOutbox(doc);
  return { h, faults };
}

/** What the order came to, leaving out what a correct fix may change (attempts, a release and re-claim, times). */
async function outcome(h: EngineHarness): Promise<Record<string, unknown>> {
  const doc = await h.doc();
  const statuses = [...new Map(h.outbox.to('app.status').map((s) => [s.options?.jobId, s.message as StatusEvent])).values()]
    .filter((e) => e.status !== 'Processing')
    .map((e) => `${e.status}${e.step ? `:${e.step}` : ''}`);
  const effects = (await h.store.history('p-1'))
    .filter((e) => e.from === 'Processing' && e.to !== 'Pending')
    .map((e) => `${e.from}->${e.to}@${e.step}`);
  const { state, mode, failureCount, currentStep, lockedBy, completeBy, outbox } = doc;
  return { state, mode, failureCount, currentStep, lockedBy, completeBy, outbox, steps: doc.steps.map((s) => s.state), statuses, effects };
}

/**
 * A document every reader can trust: a lock and a complete-by exactly while a step is held, and
 * exactly one history entry per commit (an input applied twice would add a second).
 */
async function expectConsistent(h: EngineHarness): Promise<void> {
  const doc = await h.doc();
  const held = doc.state === 'Processing' || doc.state === 'Compensating';
  expect({ state: doc.state, locked: doc.lockedBy !== null, timed: doc.completeBy !== null }).toEqual({ state: doc.state, locked: held, timed: held });
  expect(await h.store.history('p-1')).toHaveLength(doc.revision);
}

/** A middle step with every status event: its status goes out, its history waits for the process to finish (decision 62). */
const STEP_CALLS = ['commit', 'send', 'send', 'clearOutbox'];
/**
 * Every call of a clean order: claim, two replies that dispatch the next step, the last reply.
 * Only the claim reads the process: each reply starts from the copy the engine committed last.
 */
const ORDER_CALLS = ['get', ...STEP_CALLS, ...STEP_CALLS, ...STEP_CALLS, 'commit', 'appendEvents', 'send', 'send', 'clearOutbox'];

describe('ProcessEngine running a whole order when one call fails once', () => {
  let clean: Record<string, unknown>;
  beforeAll(async () => {
    const { h } = await runOrder(false);
    clean = await outcome(h);
    expect(clean).toMatchObject({ state: 'Processed', failureCount: 0, steps: ['Completed', 'Completed', 'Completed'] });
  });

  it('makes exactly the calls the fault table covers (update ORDER_CALLS when this changes)', async () => {
    const { faults } = await runOrder(false);
    expect(faults.calls.map((c) => c.method)).toEqual(ORDER_CALLS);
  });

  describe.each(FAULT_TIMINGS)('the call failing %s, the input retried', (_kind, afterwards) => {
    it.each(ORDER_CALLS.map((m, i) => [i + 1, m] as const))('call %i (%s): the order completes as a clean run, each input applied once', async (n) => {
      const { h } = await runOrder(afterwards, n);
      expect(await outcome(h)).toEqual(clean);
      await expectConsistent(h);
    });
  });
});

/** Single inputs whose commit happens but whose answer is lost; the caller applies the input again. */
const LOST_COMMITS: Array<{ name: string; setup: (h: EngineHarness) => Promise<void>; input: (h: EngineHarness) => ProcessInput; why: RegExp }> = [
  { name: 'claim', setup: async (h) => {
      await h.submit();
    }, input: () => ({ type: 'claim' }), why: /^claimed by/ },
  {
    name: 'reply',
    setup: async (h) => {
      await h.submit();
      await h.engine().apply('p-1', { type: 'claim' });
    },
    input: (h) => ({ type: 'reply', reply: okReply(agentRequests(h.outbox).at(-1)!, h.clock.t) }),
    why: /^ok from/,
  },
  {
    name: 'expire',
    setup: async (h) => {
      await h.submit();
      await h.engine().apply('p-1', { type: 'claim' });
      await h.passCompleteBy();
    },
    input: () => ({ type: 'expire' }),
    why: /complete-by passed/,
  },
  {
    name: 'cancel',
    setup: async (h) => {
      await h.submit();
      await h.engine().apply('p-1', { type: 'claim' });
    },
    input: () => ({ type: 'cancel', by: 'ops-1' }),
    why: /^canceled by ops-1/,
  },
  {
    name: 'resubmit',
    setup: async (h) => {
      await h.submit(orderFulfilmentManualV1);
      for (let i = 0; i < orderFulfilmentManualV1.failureThreshold; i++) {
        await h.engine().apply('p-1', { type: 'claim' });
        await h.passCompleteBy();
        await h.engine('supervisor-1').apply('p-1', { type: 'expire' });
      }
    },
    input: () => ({ type: 'resubmit', by: 'ops-1' }),
    why: /^resubmitted by ops-1/,
  },
];

describe.each(LOST_COMMITS)('ProcessEngine applying $name when its commit happens but the answer is lost', (c) => {
  it('reads the write back and goes on, and applying the input again does not apply it twice; what it owes is delivered once', async () => {
    const h = new EngineHarness();
    await c.setup(h);
    const input = c.input(h);
    h.outbox.clear();
    const faults = new FaultInjector().failMethodOnce('commit');
    const engine = faultyEngine(h, faults, true);
    const before = (await h.doc()).revision;

    // The write is found stored, so the engine performs what it owes (a dispatch, an outbox) at once.
    expect(await engine.apply('p-1', input)).toMatchObject({ kind: 'applied' });
    const committed = await h.doc();
    expect(committed.revision).toBe(before + 1);
    await engine.apply('p-1', input);
    // The retry changes nothing.
    expect({ ...(await h.doc()), outbox: [], outboxSince: null }).toEqual({ ...committed, outbox: [], outboxSince: null });

    for (const doc of await h.store.findUndelivered(new Date(h.clock.t), 0)) await h.engine('supervisor-1').deliverOutbox(doc);
    expect((await h.store.history('p-1')).filter((e) => c.why.test(e.why))).toHaveLength(1);
    // Nothing due is left: history alone may wait in the document for the next delivery (decision 62).
    const after = await h.doc();
    expect(after.outbox?.filter((e) => e.kind === 'message')).toEqual([]);
    expect(after.outboxSince ?? null).toBeNull();
    const ids = h.outbox.sent.filter((s) => !s.queue.startsWith('agent.') && s.queue !== QueueNames.schedulerReady).map((s) => s.options?.jobId);
    expect(new Set(ids).size).toBe(ids.length);
    await expectConsistent(h);
  });
});

describe('ProcessEngine when a commit answer is lost and the process cannot be read back either', () => {
  it('throws the commit error, so the caller retries the input', async () => {
    const h = new EngineHarness();
    await h.submit();
    const faults = new FaultInjector().failMethodOnce('commit').failMethodOnce('get', 2);
    const engine = faultyEngine(h, faults, true);
    await expect(engine.apply('p-1', { type: 'claim' })).rejects.toThrow('injected fault on commit #1');
    // Retried, the claim is not applied twice: the stored claim stands and is not re-dispatched.
    expect(await engine.apply('p-1', { type: 'claim' })).toMatchObject({ kind: 'ignored' });
    expect((await h.doc()).revision).toBe(1);
  });
});
