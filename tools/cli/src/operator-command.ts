import { OperatorCommandResult, QueueNames, SCHEMA_VERSION } from '@sas/contracts';
import { requestReply } from '@sas/bus';
import type { CliEnv } from './cli-env';

/**
 * Sends `resubmit` or `cancel` to the schedulers and waits for their answer on a private reply
 * queue. Resolves with the result; rejects when no scheduler answers in time.
 */
export async function sendOperatorCommand(
  env: CliEnv,
  command: 'resubmit' | 'cancel',
  processId: string,
  by: string,
  reason?: string,
  timeoutMs = 30_000,
): Promise<OperatorCommandResult> {
  const outcome = await requestReply({
    redisUrl: env.redisUrl,
    prefix: env.prefix,
    queue: QueueNames.operatorCommands,
    request: (replyTo) => ({ schemaVersion: SCHEMA_VERSION, command, processId, by, ...(reason ? { reason } : {}), replyTo }),
    reply: OperatorCommandResult,
    accept: (result) => result.processId === processId,
    timeoutMs,
    replyQueuePrefix: 'operator.replies',
  });
  if (outcome.answered) return outcome.reply;
  throw new Error(
    `No scheduler answered '${command} ${processId}' within ${timeoutMs} ms; are schedulers running on ${env.redisUrl} with QUEUE_PREFIX=${env.prefix}?`,
  );
}
