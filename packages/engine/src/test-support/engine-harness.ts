import { QueueNames, type ProcessDocument } from '@sas/contracts';
import { InMemoryProcessStore, type InMemoryProcessStoreOptions } from '@sas/store';
import { ManualClock, RecordingOutbox } from '@sas/testkit';
import { WorkflowRegistry, builtInWorkflows, createProcess, orderFulfilmentV1, type WorkflowDefinition } from '@sas/workflow';
import { ProcessEngine } from '../process-engine';
import { capturingLogger } from './capturing-logger';

/** When every engine test starts: a fixed instant, so expected timestamps are literal. */
export const T0 = Date.UTC(2030, 0, 1);

/**
 * One in-memory store shared by every engine it hands out (as schedulers and supervisors share
 * MongoDB), a manual clock at `T0`, a recording outbox and a logger that keeps its lines. Tests
 * work on the one process `p-1`.
 */
export class EngineHarness {
  readonly clock = new ManualClock(T0);
  readonly outbox = new RecordingOutbox();
  readonly log = capturingLogger();
  readonly store: InMemoryProcessStore;
  private readonly registry: WorkflowRegistry;

  /** `workflows` beside the built-in ones (a test's own, with a parallel group). */
  constructor(storeOptions: InMemoryProcessStoreOptions = {}, workflows: readonly WorkflowDefinition[] = []) {
    this.store = new InMemoryProcessStore(storeOptions);
    this.registry = new WorkflowRegistry([...builtInWorkflows, ...workflows]);
  }

  engine(who = 'scheduler-1', maxConflicts?: number): ProcessEngine {
    const { store, outbox, registry, clock } = this;
    const replyQueue = QueueNames.schedulerReplies;
    const logger = this.log.logger;
    return new ProcessEngine({ store, outbox, registry, clock, who, replyQueue, logger, maxConflicts });
  }

  /** Inserts p-1 as submitted now, Pending on its first step. */
  async submit(workflow: WorkflowDefinition = orderFulfilmentV1): Promise<ProcessDocument> {
    const doc = createProcess({
      processId: 'p-1',
      orderId: 'order-p-1',
      payload: { sku: 'sku-1' },
      replyTo: 'app.status',
      workflow,
      now: this.clock.t,
    });
    const inserted = await this.store.insert(doc);
    if (!inserted.ok) throw new Error(`could not insert p-1: ${inserted.reason}`);
    return doc;
  }

  async doc(): Promise<ProcessDocument> {
    const doc = await this.store.get('p-1');
    if (!doc) throw new Error('process p-1 is not in the store');
    return doc;
  }

  /** Moves the clock to the held step's complete-by. */
  async passCompleteBy(): Promise<void> {
    const { completeBy } = await this.doc();
    if (!completeBy) throw new Error('process p-1 holds no step');
    this.clock.t = completeBy.getTime();
  }
}
