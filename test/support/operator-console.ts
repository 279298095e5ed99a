import { requestReply } from '@sas/client';
import { OperatorCommandResult, QueueNames, SCHEMA_VERSION } from '@sas/contracts';

/** Where the schedulers listen: the stack's Redis and queue prefix. */
export interface OperatorConsoleTarget {
  redisUrl: string;
  prefix: string;
}

/**
 * Sends operator commands the way the `sas` CLI does (a request on `operator.commands` with a
 * private reply queue), in-process, so a test can send many at chosen moments without starting a
 * CLI process for each.
 */
export class OperatorConsole {
  constructor(
    private readonly target: OperatorConsoleTarget,
    private readonly by = 'test-operator',
  ) {}

  /** Asks the schedulers to cancel a process; resolves with their answer. */
  cancel(processId: string, reason?: string, timeoutMs = 30_000): Promise<OperatorCommandResult> {
    return this.send('cancel', processId, reason, timeoutMs);
  }

  /** Asks the schedulers to resubmit a process; resolves with their answer. */
  resubmit(processId: string, reason?: string, timeoutMs = 30_000): Promise<OperatorCommandResult> {
    return this.send('resubmit', processId, reason, timeoutMs);
  }

  private async send(command: 'cancel' | 'resubmit', processId: string, reason: string | undefined, timeoutMs: number): Promise<OperatorCommandResult> {
    const outcome = await requestReply({
      redisUrl: this.target.redisUrl,
      prefix: this.target.prefix,
      queue: QueueNames.operatorCommands,
      request: (replyTo) => ({ schemaVersion: SCHEMA_VERSION, command, processId, by: this.by, ...(reason ? { reason } : {}), replyTo }),
      reply: OperatorCommandResult,
      accept: (result) => result.processId === processId,
      timeoutMs,
      replyQueuePrefix: 'operator.replies',
    });
    if (outcome.answered) return outcome.reply;
    throw new Error(`No scheduler answered '${command} ${processId}' within ${timeoutMs} ms`);
  }
}
