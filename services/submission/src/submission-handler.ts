import {
  QueueNames,
  ReplyTo,
  SCHEMA_VERSION,
  type ProcessDocument,
  type StatusEvent,
  submissionFingerprint,
  type SubmissionMessage,
} from '@sas/contracts';
import { OutboxDelivery, outboxAfterDelivery, outboxDue, outboxEntries, type Outbox } from '@sas/engine';
import { ensureError, type Clock, type TraceSpan, type Tracing } from '@sas/runtime';
import type { ProcessStore } from '@sas/store';
import { createProcess, payloadIssues, type WorkflowRegistry } from '@sas/workflow';
import type { Logger } from 'pino';
import { rejectedEventId } from './rejected-event-id';


/** Keeps messages that cannot be handled (implemented by the bus's dead-letter queue). */
export interface DeadLetters {
  deadLetter(input: { queue: string; reason: string; issues: readonly string[]; original: unknown }): Promise<void>;
}

/** Dependencies of {@link SubmissionHandler}. */
export interface SubmissionDeps {
  store: ProcessStore;
  outbox: Outbox;
  deadLetters: DeadLetters;
  registry: WorkflowRegistry;
  clock: Clock;
  newId: () => string;
  logger: Logger;
  /** Starts each order's trace with a `submit` span. @default none (no tracing work at all) */
  tracing?: Tracing | undefined;
  /**
   * A scheduler in this same Node process that claims a new process from the copy handed to it
   * (true when its claim was committed), instead of a wake-up job (decision 128).
   * @default none: every new process is announced by a wake-up job
   */
  claimHere?: ((copy: ProcessDocument) => Promise<boolean>) | undefined;
}

/** What became of one submission. */
export type SubmissionOutcome =
  | { kind: 'received'; processId: string }
  | { kind: 'duplicate'; processId: string | undefined }
  | { kind: 'rejected'; reason: string };

/**
 * Turns a valid submission into ONE process document (order and process record in a single
 * insert, unique on orderId), answers `Received` or `Duplicate`, and wakes a scheduler.
 * A redelivery of the same submission (same fingerprint) is the same order: it is answered as
 * the first time, with the same `Received` event (same `eventId`), never `Duplicate`. A different
 * submission under a taken orderId is `Duplicate`, whether or not it would have been accepted.
 */
export class SubmissionHandler {
  private readonly delivery: OutboxDelivery;

  constructor(private readonly deps: SubmissionDeps) {
    this.delivery = new OutboxDelivery(deps.store, deps.outbox, deps.logger);
  }

  async handle(message: SubmissionMessage): Promise<SubmissionOutcome> {
    const span = this.deps.tracing?.startSpan('submit', {
      parent: message.traceparent,
      kind: 'consumer',
      attributes: { orderId: message.orderId, workflow: message.workflow },
    });
    if (!span) return this.submit(message, undefined);
    try {
      const outcome = await this.submit(message, span);
      span.setAttributes({ outcome: outcome.kind, ...(outcome.kind !== 'rejected' && outcome.processId !== undefined && { processId: outcome.processId }) });
      span.end();
      return outcome;
    } catch (e) {
      span.end(e);
      throw e;
    }
  }

  private async submit(message: SubmissionMessage, span: TraceSpan | undefined): Promise<SubmissionOutcome> {
    const { registry, store, clock, logger } = this.deps;
    const log = logger.child({ orderId: message.orderId });
    const workflow = registry.find(message.workflow, message.workflowVersion);
    const fingerprint = submissionFingerprint(message);
    if (!workflow) {
      const version = message.workflowVersion ? ` v${message.workflowVersion}` : '';
      const reason = `unknown workflow '${message.workflow}${version}'; known: ${registry.list().join(', ')}`;
      return this.refuse(message, fingerprint, reason, [], log);
    }
    // Checked before anything is written: a payload the workflow cannot run is refused here, not
    // discovered at a step after earlier steps took effect and must be undone.
    const issues = payloadIssues(workflow, message.payload);
    if (issues.length > 0) {
      const reason = `payload does not match the input schema of workflow '${workflow.name}' v${workflow.version}: ${issues.join('; ')}`;
      return this.refuse(message, fingerprint, reason, issues, log);
    }
    const processId = this.deps.newId();
    const now = clock.now();
    const created = createProcess({
      processId,
      orderId: message.orderId,
      payload: message.payload,
      replyTo: message.replyTo ?? null,
      statusEvents: message.statusEvents,
      workflow,
      now,
    });
    // The first history entry and the Received status are written with the process (its outbox),
    // so a crash right after the insert cannot lose them.
    const received: StatusEvent = { schemaVersion: SCHEMA_VERSION, orderId: message.orderId, processId, status: 'Received', at: now };
    const outbox = outboxEntries(
      processId,
      created.revision,
      message.replyTo ? [{ type: 'status', replyTo: message.replyTo, event: received }] : [],
      {
        processId,
        orderId: message.orderId,
        who: 'submission',
        at: new Date(now),
        from: null,
        to: 'Pending',
        why: `submitted (${workflow.name} v${workflow.version})`,
        attempt: 0,
        step: null,
        deleteTime: new Date(now + 2 * workflow.retentionMs),
      },
    );
    // Without a replyTo only the history entry is owed, and it waits in the document (outboxDue).
    const due = outboxDue(outbox, created.deleteTime);
    const doc: ProcessDocument = {
      ...created,
      submissionFingerprint: fingerprint,
      // Every later span of this order (dispatches, attempts, recoveries) joins this trace.
      ...(span && { traceparent: span.traceparent }),
      outboxSince: due ? created.createdAt : null,
      outbox,
    };
    const inserted = await store.insert(doc);
    if (!inserted.ok) {
      const existing = await store.getByOrderId(message.orderId);
      if (existing && existing.submissionFingerprint === fingerprint) return this.answerAgain(existing, message, log);
      return this.duplicate(message, existing, null, log);
    }
    if (this.deps.claimHere) {
      if (await this.handOver(doc, due, this.deps.claimHere, log)) {
        log.info({ processId, workflow: workflow.name, version: workflow.version, claimedHere: true }, 'order received');
        return { kind: 'received', processId };
      }
    } else if (due) {
      await this.delivery.deliver(doc);
    }
    await this.deps.outbox.send(QueueNames.schedulerReady, { schemaVersion: SCHEMA_VERSION, processId, reason: 'submitted' });
    log.info({ processId, workflow: workflow.name, version: workflow.version }, 'order received');
    return { kind: 'received', processId };
  }

  /**
   * Hands a new process to the scheduler beside this role, which claims it from the inserted copy.
   * The owed status events (`Received`) are sent first, and the copy handed over no longer owes
   * them, so the claim's commit also empties the outbox: one write instead of a clear and a claim.
   * A claim that was not committed (none here, declined, lost a race) leaves the events owed in the
   * store, so they are cleared here as `deliver` would; the caller then sends the wake-up job.
   * False also when the events could not be sent: they stay owed for the next writer or the sweep.
   */
  private async handOver(doc: ProcessDocument, due: boolean, claimHere: (copy: ProcessDocument) => Promise<boolean>, log: Logger): Promise<boolean> {
    if (due && !(await this.delivery.sendMessages(doc))) return false;
    const copy: ProcessDocument = due ? { ...doc, outbox: outboxAfterDelivery(doc.outbox, doc.deleteTime), outboxSince: null } : doc;
    let claimed = false;
    try {
      claimed = await claimHere(copy);
    } catch (e) {
      log.warn({ err: ensureError(e), processId: doc._id }, 'the scheduler beside this submission could not claim the new process; a wake-up job is sent instead');
    }
    if (!claimed && due) {
      try {
        await this.deps.store.clearOutbox(doc._id, doc.revision, copy.outbox ?? []);
      } catch (e) {
        // Sent, but still owed in the store: sent again under the same ids, which the receiver drops.
        log.error({ err: ensureError(e), processId: doc._id }, 'outbox not cleared yet; its status events will be sent again');
      }
    }
    return claimed;
  }

  /**
   * A submission this deployment cannot accept as it stands (unknown workflow, or a payload its input
   * schema refuses). The orderId is looked at first, because what a taken orderId gets must not
   * depend on whether the new content is valid:
   * - the same submission as the order holding it (an order accepted before its workflow changed
   *   or went away, then redelivered) is that order: answered as the first time;
   * - a different one is `Duplicate`, as a valid one would be, naming the process that holds the
   *   orderId, and its `reason` also says what was wrong with it. Not `Rejected`: resending it
   *   fixed under the same orderId could never succeed, and the sender must hear that the orderId
   *   is taken, by which process. Never the first order's `Received` (a repeat the sender drops);
   * - an orderId nobody holds: `Rejected`.
   */
  private async refuse(message: SubmissionMessage, fingerprint: string, reason: string, issues: readonly string[], log: Logger): Promise<SubmissionOutcome> {
    const existing = await this.deps.store.getByOrderId(message.orderId);
    if (!existing) return this.reject(message, fingerprint, reason, issues);
    if (existing.submissionFingerprint === fingerprint) return this.answerAgain(existing, message, log);
    return this.duplicate(message, existing, reason, log);
  }

  /**
   * Answers `Duplicate` to a different submission under a taken orderId, naming the process that
   * holds it (`existing` is null when that process went between the insert and the read).
   * `refused`, when this submission could not have been accepted anyway, is added to the reason.
   */
  private async duplicate(message: SubmissionMessage, existing: ProcessDocument | null, refused: string | null, log: Logger): Promise<SubmissionOutcome> {
    const holder = existing ? ` (process ${existing._id}, ${existing.state})` : '';
    const also = refused ? `; this submission is refused anyway: ${refused}` : '';
    const reason = `orderId '${message.orderId}' was already submitted${holder}; nothing new was created${also}`;
    await this.status(message.replyTo, { orderId: message.orderId, processId: existing?._id, status: 'Duplicate', reason });
    log.info({ processId: existing?._id, refused }, 'duplicate submission');
    return { kind: 'duplicate', processId: existing?._id };
  }

  /**
   * Refuses a submission before anything is created: dead-letters it with `issues` and answers
   * `Rejected` once per order (a redelivery reuses the event id, so the receiver hears it once).
   */
  private async reject(message: SubmissionMessage, fingerprint: string, reason: string, issues: readonly string[]): Promise<SubmissionOutcome> {
    await this.deps.deadLetters.deadLetter({ queue: QueueNames.submission, reason, issues, original: message });
    const eventId = rejectedEventId(message.orderId, fingerprint);
    await this.status(message.replyTo, { eventId, orderId: message.orderId, status: 'Rejected', reason }, eventId);
    this.deps.logger.child({ orderId: message.orderId }).warn({ reason }, 'submission rejected');
    return { kind: 'rejected', reason };
  }

  /**
   * The same submission again (BullMQ redelivered it after a crash, or the application resent it):
   * deliver whatever the first delivery still owes, repeat its `Received` event under the same id
   * (so a receiver that saw it drops it) and wake a scheduler, as the first delivery would have.
   */
  private async answerAgain(existing: ProcessDocument, message: SubmissionMessage, log: Logger): Promise<SubmissionOutcome> {
    const processId = existing._id;
    await this.delivery.deliver(existing);
    if (message.replyTo) {
      const event: StatusEvent = { schemaVersion: SCHEMA_VERSION, orderId: message.orderId, processId, status: 'Received', at: existing.createdAt.getTime() };
      const [received] = outboxEntries(processId, 0, [{ type: 'status', replyTo: message.replyTo, event }], null);
      if (received?.kind === 'message') await this.deps.outbox.send(received.queue, received.message, { jobId: received.id });
    }
    await this.deps.outbox.send(QueueNames.schedulerReady, { schemaVersion: SCHEMA_VERSION, processId, reason: 'submitted' });
    log.info({ processId, state: existing.state }, 'same submission delivered again; answered as the first time');
    return { kind: 'received', processId };
  }

  /** Answers the sender of a message that failed validation, when its replyTo can be read. */
  async answerRejected(raw: unknown, reason: string, issues: readonly string[]): Promise<void> {
    const fields = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
    const replyTo = ReplyTo.safeParse(fields['replyTo']);
    if (!replyTo.success) return;
    const orderId = typeof fields['orderId'] === 'string' ? fields['orderId'] : undefined;
    await this.status(replyTo.data, { orderId, status: 'Rejected', reason: `${reason}: ${issues.join('; ')}` });
  }

  private async status(replyTo: string | undefined, event: Omit<StatusEvent, 'schemaVersion' | 'at'>, jobId?: string): Promise<void> {
    if (!replyTo) return;
    await this.deps.outbox.send(replyTo, { schemaVersion: SCHEMA_VERSION, ...event, at: this.deps.clock.now() }, jobId ? { jobId } : undefined);
  }
}
