import { sendSignal } from '@sas/client';
import type { SignalRequest, SignalSendOutcome, SignalSender } from './signal-sender';

/** Options of {@link SchedulerSignalSender}. */
export interface SchedulerSignalSenderOptions {
  redisUrl: string;
  /** BullMQ key prefix of the system (QUEUE_PREFIX). */
  prefix: string;
  /** How long to wait for a scheduler's answer. */
  timeoutMs: number;
}

/**
 * {@link SignalSender} over `process.signals`, the way `@sas/client` sends signals: each gets a
 * private reply queue, so concurrent operators never see each other's answers.
 *
 * @throws {InvalidSignalError} (from `@sas/client`) when the signal cannot be sent as written
 */
export class SchedulerSignalSender implements SignalSender {
  constructor(private readonly options: SchedulerSignalSenderOptions) {}

  async send(request: SignalRequest): Promise<SignalSendOutcome> {
    const { redisUrl, prefix, timeoutMs } = this.options;
    const outcome = await sendSignal({ redisUrl, prefix }, { processId: request.processId }, request.name, request.data, {
      by: request.by,
      timeoutMs,
      ...(request.signalId !== undefined && { signalId: request.signalId }),
    });
    return outcome.answered ? { answered: true, result: outcome.reply } : { answered: false, waitedMs: timeoutMs };
  }
}
