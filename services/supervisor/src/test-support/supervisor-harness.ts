import { QueueNames, type ProcessDocument } from '@sas/contracts';
import { ProcessEngine, type PausedAgents } from '@sas/engine';
import { InMemoryLease, InMemoryProcessStore } from '@sas/store';
import { ManualClock, RecordingOutbox } from '@sas/testkit';
import {
  WorkflowRegistry,
  builtInWorkflows,
  createProcess,
  orderFulfilmentV1,
  type WorkflowDefinition,
} from '@sas/workflow';
import { pino } from 'pino';
import type { SweepLease } from '../sweep-lease';
import { Supervisor, type SupervisorDeps } from '../supervisor';

/** When every supervisor test starts: a fixed instant, so expected timestamps are literal. */
export const T0 = Date.UTC(2030, 0, 1);
/** How long the first step of the built-in workflows may run before a supervisor recovers it. */
export const COMPLETE_BY_MS = 5000;
/** Sweep interval of every supervisor the harness builds; the lease lasts three of them. */
export const SWEEP_INTERVAL_MS = 1000;

const logger = pino({ level: 'silent' });

/**
 * Supervisors and a scheduler's engine over one in-memory store and one in-memory lease, as
 * replicas share MongoDB, on a manual clock. Tests work on the one process `p-1`; `closeAll`
 * closes every supervisor the harness built.
 */
export class SupervisorHarness {
  readonly clock = new ManualClock(T0);
  readonly outbox = new RecordingOutbox();
  readonly store = new InMemoryProcessStore();
  readonly lease = new InMemoryLease();
  private readonly registry: WorkflowRegistry;
  private readonly supervisors: Supervisor[] = [];
  /** Agents an operator paused, as every engine the harness builds reads them. */
  readonly pausedAgents = new Set<string>();
  private readonly pauses: PausedAgents = { current: () => Promise.resolve(this.pausedAgents) };

  /** `workflows` beside the built-in ones (a test's own, with a parallel group). */
  constructor(workflows: readonly WorkflowDefinition[] = []) {
    this.registry = new WorkflowRegistry([...builtInWorkflows, ...workflows]);
  }

  engine(who: string): ProcessEngine {
    const { store, outbox, registry, clock } = this;
    const replyQueue = QueueNames.schedulerReplies;
    return new ProcessEngine({ store, outbox, registry, clock, who, replyQueue, logger, pausedAgents: this.pauses });
  }

  supervisor(instanceId: string, lease: SweepLease = this.lease, liveAgents?: SupervisorDeps['liveAgents']): Supervisor {
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
      ...(liveAgents && { liveAgents }),
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
      now: this.clock.t,
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
