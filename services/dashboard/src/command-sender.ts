import type { OperatorCommand, OperatorCommandResult } from '@sas/contracts';

/** Outcome of sending an operator command: no answer in time is expected (no scheduler running), not an error. */
export type CommandOutcome = { answered: true; result: OperatorCommandResult } | { answered: false; waitedMs: number };

/**
 * Sends an operator command to the schedulers and waits for the answer. An interface so the
 * HTTP layer can be tested without schedulers; {@link SchedulerCommandSender} is the real one.
 */
export interface CommandSender {
  send(command: OperatorCommand['command'], processId: string, by: string, reason?: string): Promise<CommandOutcome>;
}
