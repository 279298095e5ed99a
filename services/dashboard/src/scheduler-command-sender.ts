import { requestReply } from '@sas/client';
import { OperatorCommandResult, QueueNames, SCHEMA_VERSION, type OperatorCommand } from '@sas/contracts';
import type { CommandOutcome, CommandSender } from './command-sender';

/** Options of {@link SchedulerCommandSender}. */
export interface SchedulerCommandSenderOptions {
  redisUrl: string;
  /** BullMQ key prefix of the system (QUEUE_PREFIX). */
  prefix: string;
  /** How long to wait for a scheduler's answer. */
  timeoutMs: number;
}

/**
 * {@link CommandSender} over `operator.commands`, the same way the CLI does it: each command gets a
 * private reply queue, so concurrent operators never see each other's answers.
 */
export class SchedulerCommandSender implements CommandSender {
  constructor(private readonly options: SchedulerCommandSenderOptions) {}

  async send(command: OperatorCommand['command'], processId: string, by: string, reason?: string): Promise<CommandOutcome> {
    const outcome = await requestReply({
      redisUrl: this.options.redisUrl,
      prefix: this.options.prefix,
      queue: QueueNames.operatorCommands,
      request: (replyTo) => ({ schemaVersion: SCHEMA_VERSION, command, processId, by, ...(reason ? { reason } : {}), replyTo }),
      reply: OperatorCommandResult,
      accept: (result) => result.processId === processId && result.command === command,
      timeoutMs: this.options.timeoutMs,
      replyQueuePrefix: 'operator.replies',
    });
    return outcome.answered ? { answered: true, result: outcome.reply } : { answered: false, waitedMs: this.options.timeoutMs };
  }
}
