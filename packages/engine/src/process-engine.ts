import { randomUUID } from 'node:crypto';
import type { ProcessDocument } from '@sas/contracts';
import { ensureError, type Clock, type Tracing } from '@sas/runtime';
import type { CommitResult, OwedOutbox, ProcessStore, ProcessSummary } from '@sas/store';
import { WorkflowNotDeployedError, transition, type ProcessInput, type TransitionResult, type WorkflowRegistry } from '@sas/workflow';
import type { Logger } from 'pino';
import { ActionPerformer, type UnsentDispatch } from './action-performer';
import { OutboxDelivery } from './outbox-delivery';
import { outboxAfterDelivery, outboxDue } from './outbox-due';
import { outboxEntries } from './outbox-entries';
import type { ApplyOutcome } from './apply-outcome';
import type { Outbox } from './outbox';
import type { PausedAgents } from './paused-agents';
import { quarantineUpdate } from './quarantine-update';
import { RECENT_DOCUMENTS_BYTES, RECENT_DOCUMENTS_COUNT, RecentDocuments } from './recent-documents';
import { TransitionTrace } from './transition-trace';

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
  /**
   * How long a process whose workflow version is not deployed here may wait for a build that has
   * it (a rolling deploy) before it is given up to an operator in Error. @default 600000 (10 min)
   */
  notDeployedGraceMs?: number;
  /**
   * Documents this engine committed kept in memory, so the next input of such a process (the
   * reply to the step it dispatched) need not read it back; 0 reads every time. @default 1000
   */
  recentDocuments?: number;
  /** The same copies' most BSON bytes in all: large payloads evict early. @default 4 MiB */
  recentDocumentBytes?: number;
  /**
   * A value unique to each commit this engine makes (see `ProcessDocument.writeId`). A simulation
   * passes a deterministic one. @default crypto.randomUUID
   */
  newWriteId?: () => string;
  /** Agents an operator paused: dispatches to them are held (decision 49). @default none paused */
  pausedAgents?: PausedAgents;
  /** Spans for committed transitions and their dispatches, in the process's trace. @default none (no tracing work at all) */
  tracing?: Tracing | undefined;
}

/** What became of a process this build cannot handle. */
export type GiveUpOutcome = 'quarantined' | 'waiting' | 'changed';

/**
 * The one way a process changes: load → pure {@link transition} → commit conditionally on the
 * revision → perform actions and deliver the outbox (history, status events) side by side. A
 * conflict means another scheduler or supervisor wrote first; the input is re-evaluated against
 * the fresh document (it may now be stale).
 */
export class ProcessEngine {
  private readonly performer: ActionPerformer;
  private readonly newWriteId: () => string;
  private readonly delivery: OutboxDelivery;
  private readonly recent: RecentDocuments;

  constructor(private readonly deps: ProcessEngineDeps) {
    this.newWriteId = deps.newWriteId ?? randomUUID;
    this.recent = new RecentDocuments(deps.recentDocuments ?? RECENT_DOCUMENTS_COUNT, deps.recentDocumentBytes ?? RECENT_DOCUMENTS_BYTES);
    this.performer = new ActionPerformer(deps.outbox, deps.clock, deps.logger);
    this.delivery = new OutboxDelivery(deps.store, deps.outbox, deps.logger);
  }

  /** Delivers what a process still owes (after a crash); used by the supervisor's sweep. */
  deliverOutbox(doc: OwedOutbox): Promise<boolean> {
    return this.delivery.deliver(doc, { redelivery: true });
  }

  /**
   * Loads the process and applies the input. A document that cannot be read (it does not decode)
   * is `unhandleable`; a store that cannot be reached throws, so the caller retries later.
   *
   * When this engine committed the process last, it starts from that copy instead of reading it:
   * an input the copy accepts is committed conditionally on the copy's revision (so a copy that
   * another writer has moved past loses and the input is re-evaluated on the stored document), and
   * any other answer (ignored, unhandleable) is given only after reading the stored document.
   */
  async apply(processId: string, input: ProcessInput): Promise<ApplyOutcome> {
    return this.applyWithCopy(processId, this.recent.take(processId), input);
  }

  /**
   * Applies the input starting from a copy of the process that another component of this process
   * just wrote (the submission hands the document it inserted to a scheduler beside it), exactly as
   * from a copy this engine remembers: the commit is conditional on the copy's revision, and any
   * answer but a commit is given only after reading the stored document. A copy can therefore be
   * stale or even wrong without harm; it only spares the read when it is current.
   */
  applyFromCopy(copy: ProcessDocument, input: ProcessInput): Promise<ApplyOutcome> {
    this.recent.take(copy._id);
    return this.applyWithCopy(copy._id, copy, input);
  }

  private async applyWithCopy(processId: string, copy: ProcessDocument | undefined, input: ProcessInput): Promise<ApplyOutcome> {
    if (copy) {
      const outcome = await this.applyFrom(copy, input, true);
      if (outcome !== COPY_OUTDATED) return outcome;
    }
    let doc: ProcessDocument | null;
    try {
      doc = await this.deps.store.get(processId);
    } catch (e) {
      if (isUndecodable(e)) return { kind: 'unhandleable', reason: `its document cannot be read (${ensureError(e).message})`, waitForDeploy: false };
      throw e;
    }
    if (!doc) return { kind: 'not-found' };
    return this.applyTo(doc, input);
  }

  /** Applies the input to an already loaded document. */
  async applyTo(loaded: ProcessDocument, input: ProcessInput): Promise<ApplyOutcome> {
    const outcome = await this.applyFrom(loaded, input, false);
    // Only a remembered copy can be outdated, and none was given.
    return outcome === COPY_OUTDATED ? { kind: 'contended' } : outcome;
  }

  /** `fromCopy`: `loaded` is a remembered copy, so only a commit may be decided on it. */
  private async applyFrom(loaded: ProcessDocument, input: ProcessInput, fromCopy: boolean): Promise<ApplyOutcome | typeof COPY_OUTDATED> {
    let doc: ProcessDocument | null = loaded;
    let copy = fromCopy;
    const rounds = this.deps.maxConflicts ?? 5;
    for (let round = 0; round < rounds && doc; round++) {
      // Read before the transition; a failed read throws to the caller, which retries the input.
      const pausedAgents = this.deps.pausedAgents ? await this.deps.pausedAgents.current() : undefined;
      let result: TransitionResult;
      try {
        const workflow = this.deps.registry.get(doc.workflow, doc.workflowVersion);
        const ctx = { workflow, now: this.deps.clock.now(), who: this.deps.who, replyQueue: this.deps.replyQueue };
        result = transition(doc, input, pausedAgents ? { ...ctx, pausedAgents } : ctx);
      } catch (e) {
        if (copy) return COPY_OUTDATED;
        // The pure transition threw: no retry can change that, only a deploy (or an operator) can.
        return { kind: 'unhandleable', reason: ensureError(e).message, waitForDeploy: e instanceof WorkflowNotDeployedError };
      }
      if (!result.applied) {
        if (copy) return COPY_OUTDATED;
        return { kind: 'ignored', reason: result.reason, ...(result.alreadyApplied !== undefined ? { alreadyApplied: result.alreadyApplied } : {}) };
      }
      // History, status events and alerts are committed with the transition (a transactional
      // outbox), so a crash right after the commit cannot lose them. History waits there until the
      // process finishes (outboxDue): only an outbox that owes more is delivered and marked for the sweep.
      const outbox = [...(doc.outbox ?? []), ...outboxEntries(doc._id, result.next.revision, result.actions, result.history)];
      const due = outboxDue(outbox, result.next.deleteTime);
      const next: ProcessDocument = {
        ...result.next,
        outbox,
        outboxSince: due ? (doc.outboxSince ?? result.next.updatedAt) : null,
        writeId: this.newWriteId(),
      };
      const committed = await this.commit(next, doc.revision);
      if (committed.ok) {
        // One line per commit (no child logger: this runs once per step); the crash tests read it.
        this.deps.logger.info(
          { processId: doc._id, orderId: doc.orderId, attempt: next.attempt, revision: next.revision, from: doc.state, to: next.state, step: result.history.step },
          result.history.why,
        );
        // The dispatch does not wait for the outbox: both are owed by the committed state, and the
        // step's round trip to its agent is the longest part of a step, so it starts at once.
        const trace = this.deps.tracing && TransitionTrace.start(this.deps.tracing, next, input, doc.state);
        const [unsent, delivered] = await Promise.all([this.performer.perform(doc._id, result.actions, trace), due && this.delivery.deliver(next)]);
        trace?.end(unsent[0]?.error);
        // History not yet recorded stays owed in the stored document, and so in the copy kept of it.
        const current: ProcessDocument = delivered ? { ...next, outbox: outboxAfterDelivery(outbox, next.deleteTime), outboxSince: null } : next;
        this.recent.keep(current);
        if (unsent.length > 0 && input.type !== 'undelivered') return this.releaseUnsent(current, unsent, result.history.why);
        return { kind: 'applied', process: current, why: result.history.why };
      }
      // Lost the race: if it was a claim, someone else has it; otherwise re-evaluate.
      if (input.type === 'claim' && !copy) return { kind: 'ignored', reason: 'claimed by another scheduler' };
      doc = await this.deps.store.get(doc._id);
      copy = false;
    }
    return doc ? { kind: 'contended' } : { kind: 'not-found' };
  }

  /**
   * Gives up a process this build cannot handle: in Error with an alert, unless its workflow
   * version may still arrive with a deploy and it has not waited `notDeployedGraceMs` yet.
   */
  async giveUp(summary: ProcessSummary, outcome: Extract<ApplyOutcome, { kind: 'unhandleable' }>): Promise<GiveUpOutcome> {
    const now = this.deps.clock.now();
    const log = this.deps.logger.child({ processId: summary._id, orderId: summary.orderId });
    const waitedMs = now - summary.updatedAt.getTime();
    const graceMs = this.deps.notDeployedGraceMs ?? 600_000;
    if (outcome.waitForDeploy && waitedMs < graceMs) {
      log.error({ reason: outcome.reason, waitedMs, graceMs }, 'cannot handle process yet; it goes to Error if no build that has its workflow handles it in time');
      return 'waiting';
    }
    const update = quarantineUpdate(summary, outcome.reason, now, this.deps.who);
    const written = await this.deps.store.quarantine(summary._id, summary.revision, update.fields, update.owed);
    if (!written.ok) return 'changed';
    log.error({ reason: outcome.reason }, `ALERT ProcessError: process cannot be handled and is now in Error: ${outcome.reason}`);
    return 'quarantined';
  }

  /**
   * Commits, and when the store's answer is lost (the write may or may not have happened) reads
   * the process back to find out: taking a write that happened for one that did not would leave
   * its dispatch unsent and the step held until complete-by. Still unknown (the read fails too):
   * the error goes to the caller, which retries the input.
   */
  private async commit(next: ProcessDocument, expectedRevision: number): Promise<CommitResult> {
    try {
      return await this.deps.store.commit(next, expectedRevision);
    } catch (e) {
      const stored = await this.deps.store.get(next._id).catch(() => {
        throw e;
      });
      if (stored && isSameWrite(stored, next)) {
        this.deps.logger.warn({ err: ensureError(e), processId: next._id }, 'commit answer lost, but the write is stored; going on');
        return { ok: true };
      }
      if (stored && stored.revision === expectedRevision) throw e; // not written: the caller retries
      return { ok: false, reason: 'conflict' };
    }
  }

  /**
   * Committed dispatches did not leave: release each attempt for another send, without a failure
   * (a parallel group's members one after the other; a single step's attempt releases the process).
   */
  private async releaseUnsent(current: ProcessDocument, unsent: readonly UnsentDispatch[], why: string): Promise<ApplyOutcome> {
    let outcome: ApplyOutcome = { kind: 'applied', process: current, why };
    for (const dispatch of unsent) {
      try {
        const released = await this.applyTo(outcome.kind === 'applied' ? outcome.process : current, {
          type: 'undelivered',
          attempt: dispatch.attempt,
          error: dispatch.error,
        });
        if (released.kind === 'applied') outcome = released;
      } catch (e) {
        // The supervisor recovers the attempt after its complete-by, as for any lost dispatch.
        this.deps.logger.error({ err: ensureError(e), processId: current._id }, 'could not release an unsent dispatch; the supervisor recovers it after complete-by');
      }
    }
    return outcome;
  }
}

/** What {@link ProcessEngine.applyFrom} answers when a remembered copy may not be the stored document. */
const COPY_OUTDATED = Symbol('copy outdated');

/**
 * Whether the stored document is the one this engine wrote: same revision, and the same state,
 * attempt, lock holder and timestamp, which another writer of that revision cannot all share
 * (a competing scheduler holds another instance id; the supervisor moves to another state).
 */
/**
 * Whether the stored revision is this writer's own write. By the write's id, not by its fields: two
 * writers can make the same revision with the same state, attempt, owner and time (a release of an
 * unsent dispatch and a parked reply, in one millisecond), and a loser that took the winner's write
 * for its own would deliver an outbox that was never committed and clear the winner's.
 */
function isSameWrite(stored: ProcessDocument, next: ProcessDocument): boolean {
  return stored.revision === next.revision && next.writeId !== undefined && stored.writeId === next.writeId;
}

/** A document the driver (or the in-memory store's clone) cannot decode: too deep, or malformed BSON. */
function isUndecodable(e: unknown): boolean {
  return e instanceof RangeError || (e instanceof Error && e.name === 'BSONError');
}
