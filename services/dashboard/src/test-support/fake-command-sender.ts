import { SCHEMA_VERSION, type OperatorCommand } from '@sas/contracts';
import type { CommandOutcome, CommandSender } from '../command-sender';

/** A command as the fake received it. */
export interface SentCommand {
  command: OperatorCommand['command'];
  processId: string;
  by: string;
  reason?: string;
}

/**
 * {@link CommandSender} that records what it was asked and answers as a test scripts it:
 * `answer` decides the outcome (ok, refused, or no answer at all).
 */
export class FakeCommandSender implements CommandSender {
  readonly sent: SentCommand[] = [];
  answer: (sent: SentCommand) => CommandOutcome = (sent) => ({
    answered: true,
    result: { schemaVersion: SCHEMA_VERSION, processId: sent.processId, command: sent.command, ok: true, message: `${sent.command} by ${sent.by}` },
  });

  async send(command: OperatorCommand['command'], processId: string, by: string, reason?: string): Promise<CommandOutcome> {
    const sent: SentCommand = { command, processId, by, ...(reason ? { reason } : {}) };
    this.sent.push(sent);
    return this.answer(sent);
  }
}
