import type { ProcessDocument } from '@sas/contracts';
import { ensureError, type Clock } from '@sas/runtime';
import type { ProcessStore } from '@sas/store';
import { transition, type ProcessInput, type WorkflowRegistry } from '@sas/workflow';
import type { Logger } from 'pino';
import { ActionPerformer } from './action-performer';
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

  constructor(private readonly deps: ProcessEngineDeps) {
    this.performer = new ActionPerformer(deps.outbox, deps.clock, deps.logger);
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
      const committed = await this.deps.store.commit(result.next, doc.revision);
      if (committed.ok) {
        const log = this.deps.logger.child({ processId: doc._id, orderId: doc.orderId, attempt: result.next.attempt });
        log.info({ from: doc.state, to: result.next.state, step: result.history.step }, result.history.why);
        await this.recordHistory(result.history);
        await this.performer.perform(doc._id, result.actions);
        return { kind: 'applied', process: result.next, why: result.history.why };
      }
      // Lost the race: if it was a claim, someone else has it; otherwise re-evaluate.
      if (input.type === 'claim') return { kind: 'ignored', reason: 'claimed by another scheduler' };
      doc = await this.deps.store.get(doc._id);
    }
    return doc ? { kind: 'contended' } : { kind: 'not-found' };
  }

  private async recordHistory(entry: Parameters<ProcessStore['appendEvents']>[0][number]): Promise<void> {
    try {
      await this.deps.store.appendEvents([entry]);
    } catch (e) {
      this.deps.logger.error({ err: ensureError(e), processId: entry.processId }, 'history entry not recorded');
    }
  }
}
