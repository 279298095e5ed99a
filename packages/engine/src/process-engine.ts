import type { ProcessDocument } from '@sas/contracts';
import type { Clock } from '@sas/runtime';
import type { ProcessStore } from '@sas/store';
import { transition, type ProcessInput, type WorkflowRegistry } from '@sas/workflow';
import type { Logger } from 'pino';
import { ActionPerformer } from './action-performer';
import { OutboxDelivery } from './outbox-delivery';
import { outboxEntries } from './outbox-entries';
import type { ApplyOutcome } from './apply-outcome';
import type { Outbox } from './outbox';

/** Dependencies of {@link ProcessEngine}. */
export interface ProcessEngineDeps {
  store: ProcessStore;
  outbox: Outbox;
  registry: WorkflowRegistry;
  clock: Clock;
  /** This service instance: lock holder and history author. */
  who: string;
  /** Queue agents answer on. */
  replyQueue: string;
  logger: Logger;
  /** Reload-and-retry rounds when another writer changed the process first. @default 5 */
  maxConflicts?: number;
}

/**
 * The one way a process changes: load → pure {@link transition} → commit conditionally on the
 * revision → record history → perform actions. A conflict means another scheduler or supervisor
 * wrote first; the input is re-evaluated against the fresh document (it may now be stale).
 */
export class ProcessEngine {
  private readonly performer: ActionPerformer;
  private readonly delivery: OutboxDelivery;

  constructor(private readonly deps: ProcessEngineDeps) {
    this.performer = new ActionPerformer(deps.outbox, deps.clock, deps.logger);
    this.delivery = new OutboxDelivery(deps.store, deps.outbox, deps.logger);
  }

  /** Delivers what a process still owes (after a crash); used by the supervisor's sweep. */
  deliverOutbox(doc: ProcessDocument): Promise<boolean> {
    return this.delivery.deliver(doc);
  }

  /** Loads the process and applies the input. */
  async apply(processId: string, input: ProcessInput): Promise<ApplyOutcome> {
    const doc = await this.deps.store.get(processId);
    if (!doc) return { kind: 'not-found' };
    return this.applyTo(doc, input);
  }

  /** Applies the input to an already loaded document (e.g. a claim candidate). */
  async applyTo(loaded: ProcessDocument, input: ProcessInput): Promise<ApplyOutcome> {
    let doc: ProcessDocument | null = loaded;
    const rounds = this.deps.maxConflicts ?? 5;
    for (let round = 0; round < rounds && doc; round++) {
      const workflow = this.deps.registry.get(doc.workflow, doc.workflowVersion);
      const result = transition(doc, input, {
        workflow,
        now: this.deps.clock.now(),
        who: this.deps.who,
        replyQueue: this.deps.replyQueue,
      });
      if (!result.applied) return { kind: 'ignored', reason: result.reason };
      // History, status events and alerts are committed with the transition (a transactional
      // outbox), so a crash right after the commit cannot lose them.
      const next: ProcessDocument = {
        ...result.next,
        outbox: [...(doc.outbox ?? []), ...outboxEntries(doc._id, result.next.revision, result.actions, result.history)],
      };
      const committed = await this.deps.store.commit(next, doc.revision);
      if (committed.ok) {
        const log = this.deps.logger.child({ processId: doc._id, orderId: doc.orderId, attempt: next.attempt });
        log.info({ from: doc.state, to: next.state, step: result.history.step }, result.history.why);
        const delivered = await this.delivery.deliver(next);
        await this.performer.perform(doc._id, result.actions);
        return { kind: 'applied', process: delivered ? { ...next, outbox: [] } : next, why: result.history.why };
      }
      // Lost the race: if it was a claim, someone else has it; otherwise re-evaluate.
      if (input.type === 'claim') return { kind: 'ignored', reason: 'claimed by another scheduler' };
      doc = await this.deps.store.get(doc._id);
    }
    return doc ? { kind: 'contended' } : { kind: 'not-found' };
  }
}
