import { QueueNames, type AgentReply, type AgentRequest, type ProcessDocument } from '@sas/contracts';
import { PausedAgentsCache, ProcessEngine } from '@sas/engine';
import { InMemoryAgentPauseStore, InMemoryProcessStore, setAgentPause } from '@sas/store';
import { ManualClock, RecordingOutbox } from '@sas/testkit';
import { WorkflowRegistry, builtInWorkflows, createProcess, orderFulfilmentV1 } from '@sas/workflow';
import { pino } from 'pino';
import { HeldWorkReleaser } from './held-work-releaser';
import { OperatorCommandHandler } from './operator-command-handler';
import { Scheduler } from './scheduler';

// --- harness (kept in the test file on purpose: test helpers must not reach the package build) ---

const T0 = Date.UTC(2030, 0, 1);
const PAUSE_CACHE_MS = 1000;
const logger = pino({ level: 'silent' });

/** One scheduler instance: its own pause cache (as each process has), engine, claim loop and releaser. */
interface Instance {
  engine: ProcessEngine;
  pauses: PausedAgentsCache;
  scheduler: Scheduler;
  releaser: HeldWorkReleaser;
  commands: OperatorCommandHandler;
}

/** Schedulers over one in-memory process store and one pause store, as replicas share MongoDB. */
class Harness {
  readonly clock = new ManualClock(T0);
  readonly outbox = new RecordingOutbox();
  readonly store = new InMemoryProcessStore();
  readonly pauseStore = new InMemoryAgentPauseStore();
  private readonly registry = new WorkflowRegistry(builtInWorkflows);

  /** Queries of held work, by every instance's releaser. */
  heldLookups = 0;

  instance(who: string, ratePerSecond = 4, pauseCacheMs = PAUSE_CACHE_MS): Instance {
    const pauses = new PausedAgentsCache({ store: this.pauseStore, clock: this.clock, ttlMs: pauseCacheMs });
    const engine = new ProcessEngine({
      store: this.store,
      outbox: this.outbox,
      registry: this.registry,
      clock: this.clock,
      who,
      replyQueue: QueueNames.schedulerReplies,
      logger,
      pausedAgents: pauses,
    });
    const scheduler = new Scheduler({ engine, store: this.store, clock: this.clock, logger, pollIntervalMs: 0 });
    const counted = {
      findHeld: (agent: string, limit: number) => {
        this.heldLookups += 1;
        return this.store.findHeld(agent, limit);
      },
    };
    const releaser = new HeldWorkReleaser({ engine, store: counted, pauses, clock: this.clock, logger, ratePerSecond, intervalMs: 500 });
    const commands = new OperatorCommandHandler(engine, this.outbox, logger);
    return { engine, pauses, scheduler, releaser, commands };
  }

  async pause(agent: string): Promise<void> {
    await setAgentPause(this.pauseStore, { agent, action: 'pause', by: 'operator:alice', reason: 'maintenance', now: this.clock.t });
  }

  async resume(agent: string): Promise<void> {
    await setAgentPause(this.pauseStore, { agent, action: 'resume', by: 'operator:alice', now: this.clock.t });
  }

  async submit(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const processId = `p-${String(this.store.list().length).padStart(3, '0')}`;
      const doc = createProcess({ processId, orderId: `order-${processId}`, payload: {}, replyTo: 'app.status', workflow: orderFulfilmentV1, now: this.clock.t });
      await this.store.insert(doc);
      ids.push(processId);
    }
    return ids;
  }

  /** Takes the agent requests sent so far, as agents would consume them. */
  drain(agent?: string): AgentRequest[] {
    return this.outbox
      .take((s) => s.queue.startsWith('agent.') && (agent === undefined || s.queue === QueueNames.agentRequests(agent)))
      .map((s) => s.message as AgentRequest);
  }

  async doc(processId: string): Promise<ProcessDocument> {
    const doc = await this.store.get(processId);
    if (!doc) throw new Error(`process ${processId} is not in the store`);
    return doc;
  }

  /** Answers every request ok through `scheduler` and returns what it dispatched next. */
  async answerAll(scheduler: Scheduler, requests: readonly AgentRequest[]): Promise<void> {
    for (const r of requests) await scheduler.onReply(okReply(r, this.clock.t));
  }
}

function okReply(request: AgentRequest, at: number): AgentReply {
  const { processId, step, stepIndex, mode, attempt, agent } = request;
  return { schemaVersion: 1, processId, step, stepIndex, mode, attempt, agent, agentInstance: `${agent}-1`, at, outcome: 'ok', result: { done: step } };
}

/** Runs release rounds every 500 ms of virtual time until nothing is held or `maxRounds` pass; returns the claims per round. */
async function releaseOverTime(h: Harness, releasers: readonly HeldWorkReleaser[], maxRounds: number): Promise<number[]> {
  const perRound: number[] = [];
  for (let round = 0; round < maxRounds; round++) {
    for (const r of releasers) await r.releaseRound();
    perRound.push(h.drain('payment').length);
    if (h.store.list().every((d) => !d.heldFor)) break;
    h.clock.t += 500;
  }
  return perRound;
}

// --- tests ---

describe('pausing the payment agent during an outage', () => {
  it('holds the payment step of every order (a reply in flight included), counts nothing, and sends nothing to payment', async () => {
    const h = new Harness();
    const a = h.instance('scheduler-a');
    const ids = await h.submit(5);
    await a.scheduler.claimAvailable();
    const inventory = h.drain('inventory');
    expect(inventory).toHaveLength(5);
    // The pause commits while the inventory replies are in flight.
    await h.pause('payment');
    h.clock.t += PAUSE_CACHE_MS;
    await h.answerAll(a.scheduler, inventory);
    expect(h.drain()).toEqual([]);
    for (const id of ids) {
      expect(await h.doc(id)).toMatchObject({ state: 'Pending', heldFor: 'payment', failureCount: 0, completeBy: null, currentStep: 1 });
    }
    // Claim rounds long after do not reach them: no poll dispatches held work.
    h.clock.t += 10 * 60_000;
    await a.scheduler.claimAvailable();
    await a.releaser.releaseRound();
    expect(h.drain()).toEqual([]);
    expect(a.scheduler.metrics()).toMatchObject({ claimed: 5 });
  });

  it('keeps the work held across a restart of every scheduler, and releases it at the bounded rate once resumed', async () => {
    const h = new Harness();
    await h.pause('payment');
    const first = h.instance('scheduler-a');
    const ids = await h.submit(12);
    await first.scheduler.claimAvailable();
    await h.answerAll(first.scheduler, h.drain('inventory'));
    expect(h.store.list().filter((d) => d.heldFor === 'payment')).toHaveLength(12);

    // Every scheduler restarts: new instances, empty caches. The pause is read back from the store.
    const a = h.instance('scheduler-a2', 4);
    const b = h.instance('scheduler-b2', 4);
    h.clock.t += 60_000;
    await a.scheduler.claimAvailable();
    await b.releaser.releaseRound();
    expect(h.drain()).toEqual([]);

    await h.resume('payment');
    h.clock.t += PAUSE_CACHE_MS;
    const perRound = await releaseOverTime(h, [a.releaser, b.releaser], 20);
    // 4 per second per scheduler, 500 ms rounds: at most 2 per round each, 4 for the two together.
    expect(Math.max(...perRound)).toBeLessThanOrEqual(4);
    expect(perRound.reduce((s, n) => s + n, 0)).toBe(12);
    expect(perRound.length).toBeGreaterThanOrEqual(3);
    for (const id of ids) expect(await h.doc(id)).toMatchObject({ state: 'Processing', heldFor: null, failureCount: 0 });
  });

  it('stops querying a drained agent every round, yet releases a hold committed long after the resume', async () => {
    const h = new Harness();
    const a = h.instance('scheduler-a');
    // A scheduler whose pause reading is very stale: it still holds payment work long after the resume.
    const stale = h.instance('scheduler-stale', 4, 10 * 60_000);
    await h.pause('payment');
    await h.submit(2);
    await stale.scheduler.claimAvailable();
    const [early, late] = h.drain('inventory');
    if (!early || !late) throw new Error('expected two inventory requests');
    await stale.scheduler.onReply(okReply(early, h.clock.t));
    await h.resume('payment');
    h.clock.t += PAUSE_CACHE_MS;
    await a.releaser.releaseRound();
    expect(h.drain('payment')).toHaveLength(1);

    // 60 s of rounds with nothing held: the fast window's rounds look, the rest look once per slow interval.
    h.heldLookups = 0;
    for (let t = 0; t < 60_000; t += 500) {
      h.clock.t += 500;
      await a.releaser.releaseRound();
    }
    expect(h.heldLookups).toBeLessThanOrEqual(20 + 2);
    expect(h.heldLookups).toBeGreaterThanOrEqual(2);

    // Now the stale scheduler applies the other reply and holds its charge, a minute after the resume.
    await stale.scheduler.onReply(okReply(late, h.clock.t));
    expect(await h.doc(late.processId)).toMatchObject({ heldFor: 'payment' });
    let waitedMs = 0;
    while ((await h.doc(late.processId)).heldFor && waitedMs <= 30_000) {
      h.clock.t += 500;
      waitedMs += 500;
      await a.releaser.releaseRound();
    }
    expect(await h.doc(late.processId)).toMatchObject({ state: 'Processing', heldFor: null });
    expect(h.drain('payment')).toMatchObject([{ processId: late.processId }]);
  });

  it('looks every round again after a new resume of the same agent', async () => {
    const h = new Harness();
    const a = h.instance('scheduler-a');
    await h.pause('payment');
    await h.resume('payment');
    h.clock.t += 60_000;
    for (let i = 0; i < 3; i++) {
      h.clock.t += 500;
      await a.releaser.releaseRound();
    }
    // Paused and resumed again between two rounds: the work held meanwhile is released at the next round.
    await h.pause('payment');
    await h.submit(1);
    const holder = h.instance('scheduler-b');
    await holder.scheduler.claimAvailable();
    await h.answerAll(holder.scheduler, h.drain('inventory'));
    expect(h.store.list().filter((d) => d.heldFor === 'payment')).toHaveLength(1);
    await h.resume('payment');
    h.clock.t += PAUSE_CACHE_MS;
    await a.releaser.releaseRound();
    expect(h.drain('payment')).toHaveLength(1);
  });

  it('dispatches each held process once when two schedulers release at the same time', async () => {
    const h = new Harness();
    await h.pause('payment');
    const a = h.instance('scheduler-a', 100);
    const b = h.instance('scheduler-b', 100);
    await h.submit(10);
    await a.scheduler.claimAvailable();
    await h.answerAll(a.scheduler, h.drain('inventory'));
    await h.resume('payment');
    h.clock.t += PAUSE_CACHE_MS;
    await Promise.all([a.releaser.releaseRound(), b.releaser.releaseRound()]);
    const payment = h.drain('payment');
    expect(new Set(payment.map((r) => r.processId)).size).toBe(10);
    expect(payment).toHaveLength(10);
    await h.answerAll(b.scheduler, payment);
    await h.answerAll(a.scheduler, h.drain('shipping'));
    expect(h.store.list().map((d) => d.state)).toEqual(Array(10).fill('Processed'));
  });

  it('lets a scheduler whose reading predates the pause dispatch for at most the cache period (the documented race)', async () => {
    const h = new Harness();
    const a = h.instance('scheduler-a');
    await h.submit(2);
    await a.scheduler.claimAvailable();
    const [first, second] = h.drain('inventory');
    if (!first || !second) throw new Error('expected two inventory requests');
    await h.pause('payment');
    // Within the cache period: this scheduler has not seen the pause yet, so the charge leaves.
    h.clock.t += PAUSE_CACHE_MS - 1;
    await a.scheduler.onReply(okReply(first, h.clock.t));
    expect(h.drain('payment')).toHaveLength(1);
    h.clock.t += 1;
    await a.scheduler.onReply(okReply(second, h.clock.t));
    expect(h.drain('payment')).toEqual([]);
    expect(await h.doc(second.processId)).toMatchObject({ heldFor: 'payment' });
  });

  it('cancels a held order straight into compensation, and holds an undo for a paused agent', async () => {
    const h = new Harness();
    const a = h.instance('scheduler-a');
    const [id] = await h.submit(1);
    if (!id) throw new Error('no process');
    await a.scheduler.claimAvailable();
    await h.answerAll(a.scheduler, h.drain('inventory'));
    await a.scheduler.onReply(okReply(h.drain('payment')[0] as AgentRequest, h.clock.t));
    // Shipping in flight; now both payment and shipping are paused, then shipping's step expires.
    await h.pause('payment');
    await h.pause('shipping');
    h.clock.t += 5000;
    const expired = await a.engine.apply(id, { type: 'expire' });
    expect(expired).toMatchObject({ kind: 'applied', process: { state: 'Pending', heldFor: 'shipping', failureCount: 0 } });
    h.drain();
    const result = await a.commands.handle({ schemaVersion: 1, command: 'cancel', processId: id, by: 'operator:alice', reason: 'customer asked' });
    expect(result).toMatchObject({ ok: true, message: 'canceled by operator:alice: customer asked' });
    await a.scheduler.claimAvailable();
    // Undo of the shipment (outcome unknown) goes to shipping, paused: held, nothing sent.
    expect(h.drain()).toEqual([]);
    expect(await h.doc(id)).toMatchObject({ state: 'Pending', mode: 'compensate', heldFor: 'shipping', currentStep: 2 });
    await h.resume('shipping');
    h.clock.t += PAUSE_CACHE_MS;
    await a.releaser.releaseRound();
    const undo = h.drain();
    expect(undo).toMatchObject([{ agent: 'shipping', mode: 'compensate' }]);
    await h.answerAll(a.scheduler, undo);
    // The refund waits for payment.
    expect(h.drain()).toEqual([]);
    expect(await h.doc(id)).toMatchObject({ state: 'Pending', heldFor: 'payment', currentStep: 1 });
    await h.resume('payment');
    h.clock.t += PAUSE_CACHE_MS;
    await a.releaser.releaseRound();
    await h.answerAll(a.scheduler, h.drain('payment'));
    await h.answerAll(a.scheduler, h.drain('inventory'));
    expect(await h.doc(id)).toMatchObject({ state: 'Canceled', failureCount: 0 });
  });
});
