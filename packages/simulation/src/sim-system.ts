import { AgentHost } from '@sas/agent';
import { AgentReply, Alert, JobFailureMessage, JobTriggerMessage, OperatorCommand, QueueNames, SCHEMA_VERSION, ProcessSignal, SchedulerWakeup, SignalResult, StatusEvent, SubmissionMessage, type ProcessDocument, type ProcessSignalInput } from '@sas/contracts';
import { PausedAgentsCache, ProcessEngine } from '@sas/engine';
import { InMemoryJobStore, JobRunner, JobSpecificationService, type JobStore } from '@sas/jobs';
import { HeldWorkReleaser, OperatorCommandHandler, Scheduler, SignalHandler } from '@sas/scheduler';
import { InMemoryAgentPauseStore, InMemoryLease, InMemoryProcessStore, setAgentPause, type ProcessStore } from '@sas/store';
import { SubmissionHandler } from '@sas/submission';
import { Supervisor } from '@sas/supervisor';
import { loadWorkflows, type WorkflowRegistry } from '@sas/workflow';
import type { Logger } from 'pino';
import { silentLogger } from './silent-logger';
import { SimActor } from './sim-actor';
import { SimBreakers } from './sim-breakers';
import { SimBus } from './sim-bus';
import { SimRemote } from './sim-remote';
import type { Scenario } from './sim-scenario';
import type { SimWorld } from './sim-world';
import type { SimSignal } from './trip-scenario';
import { TRIP_SERVICES, TRIP_WORKFLOWS_JSON } from './trip-workflows';
import { viaWorld } from './via-world';

/** One step of a written document, as the invariants read it (its state and its own fence). */
export interface StepSnapshot {
  name: string;
  agent: string;
  state: ProcessDocument['steps'][number]['state'];
  /** A group member's own attempt; absent on other steps. */
  attempt: number | undefined;
  group: string | undefined;
}

/** A written document's state, attempt and steps. */
export interface WrittenState {
  state: ProcessDocument['state'];
  attempt: number;
  steps: readonly StepSnapshot[];
}

/** A successful conditional write, as the invariants see it. */
export interface CommitRecord {
  processId: string;
  expectedRevision: number;
  attempt: number;
  state: ProcessDocument['state'];
  /** The step the process is on after the write, and in which mode. */
  step: string | undefined;
  mode: ProcessDocument['mode'];
  by: string;
  role: string;
  /** The stored document's state, attempt and steps just before this write won. */
  prior: WrittenState | undefined;
  /** The steps as this write left them. */
  steps: readonly StepSnapshot[];
  /** When it was written (virtual ms), and the agent of its step. */
  at: number;
  agent: string | undefined;
}

/** An agent reply the engine reported as applied, with the commits made while it applied. */
export interface AppliedReply {
  processId: string;
  /** The attempt the reply answers, and the step it answers for. */
  attempt: number;
  step: string;
  by: string;
  /** `commits[from .. to)` were recorded while the engine applied it. */
  from: number;
  to: number;
}

/** How long engines use a reading of the paused agents: a dispatch may still leave this long after a pause. */
export const SIM_PAUSE_CACHE_MS = 1_000;

const POLL_MS = 1_000;
/** The recurring job's period: its cron is every 5 seconds. */
export const RECURRING_EVERY_MS = 5_000;
const APP_STATUS = 'app.status';
const JOB_TRIGGERS = 'app.jobs';
const JOB_FAILURES = 'app.job-failures';

/** The application's queue for the answers to its signals. */
const APP_SIGNALS = 'app.signals';

let registry: WorkflowRegistry | undefined;
let withTrips: WorkflowRegistry | undefined;

/**
 * The built-in workflows (plus the trip workflows for a seed with trips), loaded once per process
 * and shared by every seed: a registry is only read once built (as in a service, where every
 * component shares one), and building it parses each definition again.
 */
function builtInRegistry(trips: boolean): WorkflowRegistry {
  if (trips) return (withTrips ??= loadWorkflows(TRIP_WORKFLOWS_JSON));
  registry ??= loadWorkflows();
  return registry;
}

function snapshotSteps(doc: ProcessDocument): StepSnapshot[] {
  return doc.steps.map((s) => ({ name: s.name, agent: s.agent, state: s.state, attempt: s.attempt, group: s.group }));
}

/**
 * The whole system inside one simulation: the same classes the services' `main.ts` files wire,
 * built per actor on the simulated bus, stores, leases, breakers and remotes, and rebuilt from
 * nothing when a crashed instance restarts. Also the application (submits, reads its status queue)
 * and an operator (cancels, resubmits what ends in Error), which never crash.
 */
export class SimSystem {
  readonly bus: SimBus;
  readonly store = new InMemoryProcessStore();
  readonly jobStore: JobStore = new InMemoryJobStore();
  readonly remote: SimRemote;
  readonly commits: CommitRecord[] = [];
  readonly appliedReplies: AppliedReply[] = [];
  /** State and attempt of each stored process as of the last write that won. */
  /** Numbers the engines' writes (their write ids), deterministically. */
  private writes = 0;
  private readonly lastWritten = new Map<string, WrittenState>();
  readonly statuses = new Map<string, StatusEvent[]>();
  /** Orders that asked for `final` status events only (the scenario's choice, not the stored one). */
  readonly finalStatusOrders = new Set<string>();
  /** Orders the application's submission reached the queue for. */
  readonly submitted = new Set<string>();
  /** Alerts the dashboard received, as `kind orderId`. */
  readonly alerts: string[] = [];
  /** Job triggers the application received: `${jobKey}@${fireTime}` → how many times. */
  readonly triggers = new Map<string, number>();
  /** Keys of the jobs the run created. */
  readonly jobKeys: string[] = [];
  /** Failure commands of jobs the application received. */
  readonly jobFailures: string[] = [];
  /** When the one-off job fires (epoch ms), null without one. */
  readonly oneOffAt: number | null;
  /** Operators' pauses of agents, shared by every instance as MongoDB's `agent_pauses` is. */
  readonly pauses = new InMemoryAgentPauseStore();
  /** When each pause began and ended (virtual ms; `to` Infinity until resumed), for the invariants. */
  readonly pauseWindows: { agent: string; from: number; to: number }[] = [];
  /** Every signal the application sent, by signalId (a duplicate is the same signal sent again). */
  readonly signalsSent = new Map<string, { orderId: string; name: string; data: SimSignal['data']; sends: number }>();
  /** The answers the application received to its signals, by signalId. */
  readonly signalAnswers = new Map<string, SignalResult[]>();
  private readonly lease = new InMemoryLease();
  private readonly registry: WorkflowRegistry;
  private readonly logger: Logger = silentLogger();
  private readonly app: SimActor;
  private readonly operator: SimActor;
  private ids = 0;
  private readonly resubmits = new Map<string, number>();
  /** Sends a signal again, by signalId. */
  private readonly retrySignal = new Map<string, () => void>();

  constructor(
    private readonly world: SimWorld,
    private readonly scenario: Scenario,
  ) {
    this.bus = new SimBus(world);
    this.remote = new SimRemote(world, scenario.remote);
    this.app = new SimActor('app', 1, false);
    this.operator = new SimActor('operator', 1, false);
    this.oneOffAt = scenario.jobs.oneOffAtMs === null ? null : world.clock.now() + scenario.jobs.oneOffAtMs;
    this.registry = builtInRegistry(scenario.trips !== null);
  }

  /** The scenario's order of this id. */
  order(orderId: string): Scenario['orders'][number] | undefined {
    return this.scenario.orders.find((o) => o.orderId === orderId);
  }

  /** Starts every instance, the application's submissions, the operator's cancels and its rounds. */
  start(): void {
    const { instances } = this.scenario;
    for (let i = 1; i <= instances.submission; i++) this.launch(`submission-${i}`, 1, (a) => this.startSubmission(a));
    for (let i = 1; i <= instances.scheduler; i++) this.launch(`scheduler-${i}`, 1, (a) => this.startScheduler(a));
    for (let i = 1; i <= instances.supervisor; i++) this.launch(`supervisor-${i}`, 1, (a) => this.startSupervisor(a));
    for (const service of ['inventory', 'payment', 'shipping'] as const) {
      for (let i = 1; i <= instances[service]; i++) this.launch(`${service}-agent-${i}`, 1, (a) => this.startAgent(a, service));
    }
    // The trip services' agents start only in a seed with trips, so every other seed runs as before.
    const trips = this.scenario.trips;
    for (const service of trips ? TRIP_SERVICES : []) {
      for (let i = 1; i <= (trips?.instances[service] ?? 0); i++) this.launch(`${service}-agent-${i}`, 1, (a) => this.startAgent(a, service));
    }
    this.launch('dashboard-1', 1, (a) => this.startDashboard(a));
    this.startApplication();
    this.startOperator();
    this.createJobs();
  }

  /** Whether every job occurrence due by `until` has been fired and its trigger handled. */
  async jobsCaughtUp(until: number): Promise<boolean> {
    for (const key of this.jobKeys) {
      const job = await this.jobStore.getByKey(key);
      if (!job) return false;
      if (job.inFlight) return false;
      if (key === 'once' ? job.status === 'SCHEDULED' : (job.lastFireTime?.getTime() ?? 0) < Math.floor(until / RECURRING_EVERY_MS) * RECURRING_EVERY_MS) return false;
    }
    return true;
  }

  /** The scenario's persistent jobs, created before anything runs (as an operator would have). */
  private createJobs(): void {
    const service = new JobSpecificationService(this.jobStore, { clock: this.world.clock, newId: () => `job-${++this.ids}` });
    const common = {
      jobRequestor: 'sim',
      triggerCommand: { type: 'message', queue: JOB_TRIGGERS, message: { run: 'report' } },
      failureCommand: { queue: JOB_FAILURES, message: { alert: 'job failed' } },
      failureIdentifier: 'failed',
    };
    const { recurring, oneOffAtMs } = this.scenario.jobs;
    const specs = [
      ...(recurring ? [{ ...common, jobSpecificationKey: 'every-5s', schedulingSpecification: '*/5 * * * * *', triggerIdentifier: 'every-5s' }] : []),
      ...(oneOffAtMs !== null ? [{ ...common, jobSpecificationKey: 'once', singleSchedule: new Date(this.oneOffAt ?? oneOffAtMs).toISOString(), triggerIdentifier: 'once' }] : []),
    ];
    for (const spec of specs) {
      this.jobKeys.push(spec.jobSpecificationKey);
      void service.create(spec, 'sim').then((created) => {
        if (!created.ok) throw new Error(`the simulation's job ${spec.jobSpecificationKey} is not valid: ${created.message}`);
      });
    }
  }

  /** The dashboard's alert inbox (it keeps alerts for operators). */
  private startDashboard(actor: SimActor): void {
    this.bus.consume(actor, { queue: QueueNames.alerts, schema: Alert, handle: async (alert) => void this.alerts.push(`${alert.kind} ${alert.orderId ?? ''}`) });
  }

  /** The process store as `actor` reaches it (each call awaited, faulty, crashable). */
  private storeFor(actor: SimActor, role: string): ProcessStore {
    return viaWorld<ProcessStore>(this.world, actor, 'store', 'store', this.store, (a, method, args, result) => {
      if (!(result as { ok?: boolean } | undefined)?.ok) return;
      if (method === 'insert') {
        const doc = args[0] as ProcessDocument;
        this.lastWritten.set(doc._id, { state: doc.state, attempt: doc.attempt, steps: snapshotSteps(doc) });
      } else if (method === 'quarantine') {
        const fields = args[2] as { state: ProcessDocument['state']; attempt: number };
        const id = args[0] as string;
        this.lastWritten.set(id, { state: fields.state, attempt: fields.attempt, steps: this.lastWritten.get(id)?.steps ?? [] });
      } else if (method === 'commit') {
        const next = args[0] as ProcessDocument;
        const step = next.steps[next.currentStep];
        const prior = this.lastWritten.get(next._id);
        const steps = snapshotSteps(next);
        this.lastWritten.set(next._id, { state: next.state, attempt: next.attempt, steps });
        this.commits.push({ processId: next._id, expectedRevision: args[1] as number, attempt: next.attempt, state: next.state, step: step?.name, mode: next.mode, by: a.name, role, prior, steps, at: this.world.clock.now(), agent: step?.agent });
      }
    });
  }

  /** The paused agents as `actor` reads them; none (and no extra awaited call) in a seed without pauses. */
  private pausesFor(actor: SimActor): PausedAgentsCache | undefined {
    if (this.scenario.pauses.length === 0) return undefined;
    return new PausedAgentsCache({ store: viaWorld(this.world, actor, 'store', 'pauses', this.pauses), clock: this.world.clock, ttlMs: SIM_PAUSE_CACHE_MS });
  }

  private engineFor(actor: SimActor, role: string, store: ProcessStore, pausedAgents?: PausedAgentsCache): ProcessEngine {
    const engine = this.newEngine(actor, store, pausedAgents);
    if (role !== 'scheduler') return engine;
    // Evidence for the reply fence: which commits an applied reply made (see the invariants).
    const apply = engine.apply.bind(engine);
    engine.apply = async (processId, input) => {
      const from = this.commits.length;
      const outcome = await apply(processId, input);
      if (input.type === 'reply' && outcome.kind === 'applied') {
        this.appliedReplies.push({ processId, attempt: input.reply.attempt, step: input.reply.step, by: actor.name, from, to: this.commits.length });
      }
      return outcome;
    };
    return engine;
  }

  private newEngine(actor: SimActor, store: ProcessStore, pausedAgents?: PausedAgentsCache): ProcessEngine {
    return new ProcessEngine({
      ...(pausedAgents ? { pausedAgents } : {}),
      newWriteId: () => `${actor.name}#${++this.writes}`,
      store,
      outbox: this.bus.sender(actor),
      registry: this.registry,
      clock: this.world.clock,
      who: actor.name,
      replyQueue: QueueNames.schedulerReplies,
      logger: this.logger,
    });
  }

  /** Starts generation `generation` of `slot`; when it crashes, the next one starts after a while. */
  private launch(slot: string, generation: number, start: (actor: SimActor) => void): void {
    const actor = new SimActor(slot, generation, true);
    actor.onCrash(() => {
      const [min, max] = this.scenario.restartDelayMs;
      this.world.clock.schedule(this.world.rng.int(min, max), null, () => {
        this.world.trace(`RESTART ${slot}.g${generation + 1}`);
        this.launch(slot, generation + 1, start);
      });
    });
    start(actor);
  }

  /** Runs `tick` now and every `ms` while `actor` lives (a service's setInterval). */
  private every(actor: SimActor, ms: number, tick: () => void): void {
    const loop = (): void => {
      tick();
      this.world.clock.schedule(ms, actor, loop);
    };
    this.world.clock.schedule(this.world.rng.int(0, ms), actor, loop);
  }

  private startSubmission(actor: SimActor): void {
    const handler = new SubmissionHandler({
      store: this.storeFor(actor, 'submission'),
      outbox: this.bus.sender(actor),
      deadLetters: this.bus.deadLetterSink(actor),
      registry: this.registry,
      clock: this.world.clock,
      newId: () => `p-${++this.ids}`,
      logger: this.logger,
    });
    this.bus.consume(actor, {
      queue: QueueNames.submission,
      schema: SubmissionMessage,
      handle: async (message) => {
        await handler.handle(message);
      },
      onRejected: (raw, reason, issues) => handler.answerRejected(raw, reason, issues),
    });
  }

  private startScheduler(actor: SimActor): void {
    const store = this.storeFor(actor, 'scheduler');
    const pauses = this.pausesFor(actor);
    const engine = this.engineFor(actor, 'scheduler', store, pauses);
    if (pauses) {
      const releaser = new HeldWorkReleaser({ engine, store, pauses, clock: this.world.clock, logger: this.logger, intervalMs: 0 });
      this.every(actor, 500, () => void releaser.releaseRound());
    }
    const scheduler = new Scheduler({ engine, store, clock: this.world.clock, logger: this.logger, pollIntervalMs: 0 });
    const commands = new OperatorCommandHandler(engine, this.bus.sender(actor), this.logger);
    this.bus.consume(actor, { queue: QueueNames.schedulerReplies, schema: AgentReply, handle: async (reply) => void (await scheduler.onReply(reply)) });
    this.bus.consume(actor, { queue: QueueNames.schedulerReady, schema: SchedulerWakeup, concurrency: 1, handle: (wakeup) => scheduler.onWakeup(wakeup) });
    this.bus.consume(actor, {
      queue: QueueNames.operatorCommands,
      schema: OperatorCommand,
      concurrency: 1,
      handle: async (command, meta) => {
        await commands.handle(command, meta.jobId);
        void scheduler.claimAvailable();
      },
    });
    // Signals, wired as the scheduler's main.ts wires them; a seed without trips sends none.
    const signals = new SignalHandler(engine, store, this.bus.sender(actor), this.logger);
    this.bus.consume(actor, {
      queue: QueueNames.processSignals,
      schema: ProcessSignal,
      concurrency: 4,
      handle: async (signal, meta) => {
        await signals.handle(signal, meta.jobId);
        void scheduler.claimAvailable();
      },
      onRejected: (raw, reason, issues) => signals.rejected(raw, reason, issues),
    });
    this.every(actor, POLL_MS, () => void scheduler.claimAvailable());
    const runner = new JobRunner(viaWorld(this.world, actor, 'store', 'jobs', this.jobStore), this.bus.sender(actor), this.world.clock, viaWorld(this.world, actor, 'store', 'lease', this.lease), this.logger, {
      instanceId: actor.name,
      pollIntervalMs: 0,
      leaseTtlMs: 3 * POLL_MS,
    });
    this.every(actor, POLL_MS, () => void runner.poll());
  }

  private startSupervisor(actor: SimActor): void {
    const store = this.storeFor(actor, 'supervisor');
    const supervisor = new Supervisor({
      engine: this.engineFor(actor, 'supervisor', store, this.pausesFor(actor)),
      store,
      lease: viaWorld(this.world, actor, 'store', 'lease', this.lease),
      clock: this.world.clock,
      instanceId: actor.name,
      logger: this.logger,
      sweepIntervalMs: 0,
      leaseTtlMs: 3 * POLL_MS,
    });
    this.every(actor, POLL_MS, () => void supervisor.sweep());
  }

  private startAgent(actor: SimActor, service: string): void {
    const sender = this.bus.sender(actor);
    const host = new AgentHost({
      agents: [{ name: service, operations: {}, otherOperations: this.remote.operation(actor, service) }],
      instanceId: actor.name,
      bus: { send: (queue, message) => sender.send(queue, message), consume: (spec) => this.bus.consume(actor, spec) },
      breakers: new SimBreakers(this.world.clock),
      clock: this.world.clock,
      sleep: (ms, signal) => this.world.sleep(actor, ms, signal),
      random: () => this.world.rng.next(),
      logger: this.logger,
      defaults: { retry: { maxAttempts: 5, initialBackoffMs: 50, maxBackoffMs: 1000, multiplier: 2, jitter: 0.5 } },
    });
    host.start();
  }

  /** The application: submits each order at its time (retrying a failed send) and reads its status queue. */
  private startApplication(): void {
    const sender = this.bus.sender(this.app);
    for (const order of this.scenario.orders) {
      if (order.statusEvents === 'final') this.finalStatusOrders.add(order.orderId);
      const message: SubmissionMessage = {
        schemaVersion: SCHEMA_VERSION,
        orderId: order.orderId,
        workflow: order.workflow,
        payload: order.payload,
        replyTo: APP_STATUS,
        ...(order.statusEvents && { statusEvents: order.statusEvents }),
      };
      const attempt = (): void => {
        sender.send(QueueNames.submission, message, { jobId: `submit.${order.orderId}` }).then(
          () => this.submitted.add(order.orderId),
          () => this.world.clock.schedule(500, this.app, attempt),
        );
      };
      this.world.clock.schedule(order.submitAtMs, this.app, attempt);
    }
    this.bus.consume(this.app, {
      queue: APP_STATUS,
      schema: StatusEvent,
      handle: async (event) => {
        const key = event.orderId ?? '?';
        const list = this.statuses.get(key) ?? [];
        list.push(event);
        this.statuses.set(key, list);
      },
    });
    this.bus.consume(this.app, {
      queue: JOB_TRIGGERS,
      schema: JobTriggerMessage,
      handle: async (trigger) => {
        const key = `${trigger.jobSpecificationKey}@${trigger.fireTime}`;
        this.triggers.set(key, (this.triggers.get(key) ?? 0) + 1);
      },
    });
    this.bus.consume(this.app, { queue: JOB_FAILURES, schema: JobFailureMessage, handle: async (failure) => void this.jobFailures.push(`${failure.jobSpecificationKey}@${failure.fireTime}: ${failure.reason}`) });
    this.startSignals();
  }

  /**
   * The application's signals: each sent at its moment (a failed send is sent again), each answer
   * kept for the invariants; a signal answered `not-found` (sent before its order's process existed)
   * is sent again a second later, as an application would, under the same signalId.
   */
  private startSignals(): void {
    const trips = this.scenario.trips;
    if (!trips) return;
    const sender = this.bus.sender(this.app);
    let sends = 0;
    for (const signal of trips.signals) {
      const order = this.scenario.orders[signal.order];
      if (!order) continue;
      const message: ProcessSignalInput = { schemaVersion: 1, orderId: order.orderId, name: signal.name, data: signal.data, signalId: signal.signalId, by: 'app:sim', replyTo: APP_SIGNALS };
      const attempt = (): void => {
        const sent = this.signalsSent.get(signal.signalId) ?? { orderId: order.orderId, name: signal.name, data: signal.data, sends: 0 };
        sent.sends += 1;
        this.signalsSent.set(signal.signalId, sent);
        sender.send(QueueNames.processSignals, message, { jobId: `signal.${signal.signalId}.${++sends}` }).catch(() => this.world.clock.schedule(500, this.app, attempt));
      };
      this.retrySignal.set(signal.signalId, attempt);
      this.world.clock.schedule(signal.atMs, this.app, attempt);
    }
    this.bus.consume(this.app, {
      queue: APP_SIGNALS,
      schema: SignalResult,
      handle: async (answer) => {
        this.signalAnswers.set(answer.signalId, [...(this.signalAnswers.get(answer.signalId) ?? []), answer]);
        const again = this.retrySignal.get(answer.signalId);
        if (answer.outcome === 'not-found' && again) this.world.clock.schedule(1_000, this.app, again);
      },
    });
  }

  /**
   * The operator: cancels the scenario's orders at their moments, and every few seconds resubmits
   * what stopped in Error (cancelling it after a few resubmits), as a person on the dashboard would.
   */
  private startOperator(): void {
    const sender = this.bus.sender(this.operator);
    const command = (processId: string, kind: 'cancel' | 'resubmit', id: string): void => {
      const message: OperatorCommand = { schemaVersion: SCHEMA_VERSION, command: kind, processId, by: 'operator:sim', commandId: id };
      sender.send(QueueNames.operatorCommands, message, { jobId: id }).catch(() => undefined);
    };
    for (const cancel of [...this.scenario.cancels, ...(this.scenario.trips?.cancels ?? [])]) {
      const order = this.scenario.orders[cancel.order];
      if (!order) continue;
      this.world.clock.schedule(cancel.atMs, this.operator, () => {
        void this.store.getByOrderId(order.orderId).then((doc) => {
          if (doc) command(doc._id, 'cancel', `cancel.${order.orderId}`);
        });
      });
    }
    for (const pause of this.scenario.pauses) {
      const set = (action: 'pause' | 'resume'): void => {
        const now = this.world.clock.now();
        void setAgentPause(this.pauses, { agent: pause.service, action, by: 'operator:sim', reason: 'simulated maintenance', now }).then(() => {
          if (action === 'pause') this.pauseWindows.push({ agent: pause.service, from: now, to: Infinity });
          else for (const w of this.pauseWindows) if (w.agent === pause.service && w.to === Infinity) w.to = now;
        });
      };
      this.world.clock.schedule(pause.atMs, this.operator, () => set('pause'));
      this.world.clock.schedule(pause.untilMs, this.operator, () => set('resume'));
    }
    this.every(this.operator, 5_000, () => {
      for (const id of this.store.inspect((d) => (d.state === 'Error' ? d._id : null))) {
        if (id === null) continue;
        const n = (this.resubmits.get(id) ?? 0) + 1;
        this.resubmits.set(id, n);
        command(id, n > 3 ? 'cancel' : 'resubmit', `op.${id}.${n}`);
      }
    });
  }
}
