import { randomBytes } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { OperatorCommandResult, QueueNames, SCHEMA_VERSION } from '@sas/contracts';
import { createRedisConnection } from '@sas/bus';
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
  timeoutMs = 30_000,
): Promise<OperatorCommandResult> {
  const replyTo = `operator.replies.${randomBytes(4).toString('hex')}`;
  const connection = createRedisConnection(env.redisUrl);
  const queue = new Queue(QueueNames.operatorCommands, { connection, prefix: env.prefix });
  let settle: (r: OperatorCommandResult) => void = () => undefined;
  const answered = new Promise<OperatorCommandResult>((resolve) => (settle = resolve));
  const worker = new Worker(
    replyTo,
    async (job) => {
      const parsed = OperatorCommandResult.safeParse(job.data);
      if (parsed.success && parsed.data.processId === processId) settle(parsed.data);
    },
    { connection: createRedisConnection(env.redisUrl), prefix: env.prefix },
  );
  let timer: NodeJS.Timeout | undefined;
  try {
    await queue.add('operator', { schemaVersion: SCHEMA_VERSION, command, processId, by, replyTo });
    return await Promise.race([
      answered,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`No scheduler answered '${command} ${processId}' within ${timeoutMs} ms; are schedulers running on ${env.redisUrl} with QUEUE_PREFIX=${env.prefix}?`)),
          timeoutMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
    await worker.close();
    const replies = new Queue(replyTo, { connection, prefix: env.prefix });
    await replies.obliterate({ force: true }).catch(() => undefined);
    await replies.close();
    await queue.close();
    await connection.quit().catch(() => connection.disconnect());
  }
}
