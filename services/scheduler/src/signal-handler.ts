import { ReplyTo, SCHEMA_VERSION, type ProcessDocument, type ProcessSignal, type SignalOutcome, type SignalResult } from '@sas/contracts';
import type { ApplyOutcome, Outbox, ProcessEngine } from '@sas/engine';
import type { Logger } from 'pino';

/** The read a signal by orderId needs: the process store's lookup by orderId. */
export interface OrderLookup {
  getByOrderId(orderId: string): Promise<ProcessDocument | null>;
}

/**
 * Applies signals from outside (`process.signals`) through the same engine as everything else, and
 * answers the sender with what became of the signal. The transition decides (`applySignal` in
 * `@sas/workflow`): consumed by the signal step waiting for it, kept for a later one, a repeat of a
 * signal id the process already has (answered as then, counted once), or refused.
 *
 * A signal without its own id is identified by the message that carried it, so a redelivery after
 * a lost answer is a repeat, not a second signal.
 */
export class SignalHandler {
  constructor(
    private readonly engine: ProcessEngine,
    private readonly lookup: OrderLookup,
    /** Where answers go; in the service, the bus's `sendReply` (drops answers to a closed private reply queue). */
    private readonly replies: Outbox,
    private readonly logger: Logger,
  ) {}

  /** Answers given so far, by outcome: an invalid message counts even when its sender could not be answered. */
  private readonly answered: Record<SignalOutcome, number> = { consumed: 0, kept: 0, repeat: 0, refused: 0, 'not-found': 0, invalid: 0 };

  /** The answers counted by outcome, for `/metrics` (see `registerSignalCounters`). */
  metrics(): Record<SignalOutcome, number> {
    return { ...this.answered };
  }

  /** `messageId` identifies the delivery's message (BullMQ job id); used when the signal has no `signalId`. */
  async handle(signal: ProcessSignal, messageId?: string): Promise<SignalResult> {
    const signalId = signal.signalId ?? `message:${messageId ?? 'unknown'}`;
    let processId = signal.processId;
    if (processId === undefined && signal.orderId !== undefined) processId = (await this.lookup.getByOrderId(signal.orderId))?._id;
    const answer = (processIdOf: string | null, ok: boolean, outcome: SignalOutcome, message: string): SignalResult => ({
      schemaVersion: SCHEMA_VERSION,
      signalId,
      processId: processIdOf,
      orderId: signal.orderId ?? null,
      name: signal.name,
      ok,
      outcome,
      message,
    });
    let result: SignalResult;
    if (processId === undefined) {
      result = answer(null, false, 'not-found', `no process has the orderId '${signal.orderId ?? ''}' (wrong id, not submitted yet, or removed after its retention); signal not used`);
    } else {
      const outcome = await this.engine.apply(processId, { type: 'signal', signalId, name: signal.name, data: signal.data, by: signal.by });
      result = this.resultOf(outcome, processId, signalId, answer);
    }
    this.answered[result.outcome] += 1;
    this.logger.info({ signal: signal.name, signalId, processId: result.processId, orderId: signal.orderId, by: signal.by, outcome: result.outcome }, result.message);
    if (signal.replyTo) await this.replies.send(signal.replyTo, result);
    return result;
  }

  /**
   * Answers the sender of a signal message that was dead-lettered (invalid, or failing for good),
   * when its reply queue can be read from it: the sender hears why instead of waiting out its timeout.
   */
  async rejected(raw: unknown, reason: string, issues: readonly string[]): Promise<void> {
    this.answered.invalid += 1;
    const fields = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
    const text = (key: string): string | null => (typeof fields[key] === 'string' ? (fields[key] as string) : null);
    const replyTo = ReplyTo.safeParse(fields['replyTo']);
    if (!replyTo.success) return;
    const result: SignalResult = {
      schemaVersion: SCHEMA_VERSION,
      signalId: text('signalId') ?? '',
      processId: text('processId'),
      orderId: text('orderId'),
      name: text('name') ?? '',
      ok: false,
      outcome: 'invalid',
      message: `${reason}${issues.length > 0 ? `: ${issues.join('; ')}` : ''}; the signal was not applied and is kept in the dead-letter queue; fix it and send it again`,
    };
    await this.replies.send(replyTo.data, result);
  }

  private resultOf(
    outcome: ApplyOutcome,
    processId: string,
    signalId: string,
    answer: (processId: string | null, ok: boolean, outcome: SignalOutcome, message: string) => SignalResult,
  ): SignalResult {
    switch (outcome.kind) {
      case 'applied': {
        const kept = outcome.process.signals?.find((s) => s.id === signalId);
        return answer(processId, true, kept?.consumedBy ? 'consumed' : 'kept', outcome.why);
      }
      case 'ignored':
        return outcome.alreadyApplied !== undefined ? answer(processId, true, 'repeat', outcome.alreadyApplied) : answer(processId, false, 'refused', outcome.reason);
      case 'not-found':
        return answer(null, false, 'not-found', `no process ${processId} (wrong id, or removed after its retention); signal not used`);
      case 'unhandleable':
        return answer(processId, false, 'refused', `process ${processId} cannot be handled by this build (${outcome.reason}); signal not used`);
      case 'contended':
        throw new Error(`process ${processId} kept changing; the signal will be retried`);
    }
  }
}
