import { ProcessSignal, QueueNames, SCHEMA_VERSION, SignalResult, defaultSignalId, describeIssues, stepResultProblem, type JsonObject } from '@sas/contracts';
import { InvalidSignalError } from './errors/invalid-signal-error';
import { requestReply, type RequestReplyOutcome } from './request-reply';

/** Options of {@link SasClient.signal}. */
export interface SignalOptions {
  /**
   * Identifies the signal: sending it again with the same id is answered as the first time and
   * counted once. @default derived from the orderId, name and data (see `defaultSignalId`), so a
   * retried call counts once; give your own to send the same data twice as two signals.
   */
  signalId?: string;
  /** Who sends it, recorded in the process history. @default 'application' */
  by?: string;
  /** How long to wait for a scheduler's answer. @default 30000 */
  timeoutMs?: number;
}

/** Where a signal goes: the system's Redis and key prefix. */
export interface SignalTarget {
  redisUrl: string;
  prefix: string;
}

/**
 * Validates a signal for the process of `target` and sends it to `process.signals`, then waits for
 * the scheduler's answer on a private reply queue. A timeout is a value (`answered: false`).
 *
 * @throws {InvalidSignalError} naming each invalid field; nothing was sent
 */
export async function sendSignal(
  where: SignalTarget,
  target: { orderId: string } | { processId: string },
  name: string,
  data: JsonObject | null,
  options: SignalOptions = {},
): Promise<RequestReplyOutcome<SignalResult>> {
  // Before the default id, which hashes the data recursively: too deep a nesting is refused, not a stack overflow.
  const problem = data === null ? null : stepResultProblem(data);
  if (problem) throw new InvalidSignalError(name, [`data: ${problem.replace('the result', 'the data')}; send a reference (an id, a URL) instead`]);
  const signalId = options.signalId ?? defaultSignalId(target, name, data);
  const parsed = ProcessSignal.safeParse({ schemaVersion: SCHEMA_VERSION, ...target, name, data, signalId, ...(options.by !== undefined && { by: options.by }) });
  if (!parsed.success) throw new InvalidSignalError(name, describeIssues(parsed.error));
  const signal = parsed.data;
  return requestReply({
    redisUrl: where.redisUrl,
    prefix: where.prefix,
    queue: QueueNames.processSignals,
    request: (replyTo) => ({ ...signal, replyTo }),
    reply: SignalResult,
    accept: (result) => result.signalId === signalId,
    timeoutMs: options.timeoutMs ?? 30_000,
    replyQueuePrefix: 'signal.replies',
  });
}
