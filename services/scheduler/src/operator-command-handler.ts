import { SCHEMA_VERSION, type OperatorCommand, type OperatorCommandResult } from '@sas/contracts';
import type { Outbox, ProcessEngine } from '@sas/engine';
import type { Logger } from 'pino';

/**
 * Applies operator commands (resubmit an Error process, cancel an unfinished one) through the
 * same engine as everything else, and answers the operator with the outcome.
 */
export class OperatorCommandHandler {
  constructor(
    private readonly engine: ProcessEngine,
    private readonly outbox: Outbox,
    private readonly logger: Logger,
  ) {}

  async handle(command: OperatorCommand): Promise<OperatorCommandResult> {
    const input =
      command.command === 'resubmit'
        ? ({ type: 'resubmit', by: command.by, reason: command.reason } as const)
        : ({ type: 'cancel', by: command.by, reason: command.reason } as const);
    const outcome = await this.engine.apply(command.processId, input);
    let result: OperatorCommandResult;
    switch (outcome.kind) {
      case 'applied':
        result = this.result(command, true, outcome.why);
        break;
      case 'ignored':
        result = this.result(command, false, outcome.reason);
        break;
      case 'not-found':
        result = this.result(command, false, `no process ${command.processId} (wrong id, or removed after its retention)`);
        break;
      case 'contended':
        throw new Error(`process ${command.processId} kept changing; the command will be retried`);
    }
    this.logger.info({ command: command.command, processId: command.processId, by: command.by, ok: result.ok }, result.message);
    if (command.replyTo) await this.outbox.send(command.replyTo, result);
    return result;
  }

  private result(command: OperatorCommand, ok: boolean, message: string): OperatorCommandResult {
    return { schemaVersion: SCHEMA_VERSION, processId: command.processId, command: command.command, ok, message };
  }
}
