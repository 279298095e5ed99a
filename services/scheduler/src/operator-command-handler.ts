import { SCHEMA_VERSION, type OperatorCommand, type OperatorCommandResult } from '@sas/contracts';
import type { Outbox, ProcessEngine } from '@sas/engine';
import type { Logger } from 'pino';

/**
 * Applies operator commands (resubmit an Error process, cancel an unfinished one) through the
 * same engine as everything else, and answers the operator with the outcome.
 *
 * A command is identified by its `commandId` (or the id of the message that carried it), which
 * the process remembers with the transition: a redelivery after the answer was lost (the send
 * failed, the scheduler died) answers what the first delivery did, not "refused".
 */
export class OperatorCommandHandler {
  constructor(
    private readonly engine: ProcessEngine,
    /** Where answers go; in the service, the bus's `sendReply` (drops answers to a closed private reply queue). */
    private readonly replies: Outbox,
    private readonly logger: Logger,
  ) {}

  /** `messageId` identifies the delivery's message (BullMQ job id); used when the command has no `commandId`. */
  async handle(command: OperatorCommand, messageId?: string): Promise<OperatorCommandResult> {
    const commandId = command.commandId ?? (messageId ? `message:${messageId}` : undefined);
    const common = { by: command.by, reason: command.reason, ...(commandId ? { commandId } : {}) };
    const input = command.command === 'resubmit' ? ({ type: 'resubmit', ...common } as const) : ({ type: 'cancel', ...common } as const);
    const outcome = await this.engine.apply(command.processId, input);
    let result: OperatorCommandResult;
    switch (outcome.kind) {
      case 'applied':
        result = this.result(command, true, outcome.why);
        break;
      case 'ignored':
        result = outcome.alreadyApplied !== undefined ? this.result(command, true, outcome.alreadyApplied) : this.result(command, false, outcome.reason);
        break;
      case 'not-found':
        result = this.result(command, false, `no process ${command.processId} (wrong id, or removed after its retention)`);
        break;
      case 'unhandleable':
        result = this.result(command, false, `process ${command.processId} cannot be handled by this build (${outcome.reason})`);
        break;
      case 'contended':
        throw new Error(`process ${command.processId} kept changing; the command will be retried`);
    }
    this.logger.info({ command: command.command, processId: command.processId, by: command.by, commandId, ok: result.ok }, result.message);
    if (command.replyTo) await this.replies.send(command.replyTo, result);
    return result;
  }

  private result(command: OperatorCommand, ok: boolean, message: string): OperatorCommandResult {
    return { schemaVersion: SCHEMA_VERSION, processId: command.processId, command: command.command, ok, message };
  }
}
