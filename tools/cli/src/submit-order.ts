import { Queue } from 'bullmq';
import { QueueNames, SCHEMA_VERSION, SubmissionMessage, describeIssues } from '@sas/contracts';
import { createRedisConnection } from '@sas/bus';
import type { CliEnv } from './cli-env';

/** Validates and submits one order; throws with every validation issue when it is invalid. */
export async function submitOrder(
  env: CliEnv,
  input: { orderId: string; workflow: string; payload: unknown; replyTo?: string },
): Promise<void> {
  const parsed = SubmissionMessage.safeParse({ schemaVersion: SCHEMA_VERSION, ...input });
  if (!parsed.success) throw new Error(`Order is not valid: ${describeIssues(parsed.error).join('; ')}`);
  const connection = createRedisConnection(env.redisUrl);
  const queue = new Queue(QueueNames.submission, { connection, prefix: env.prefix });
  try {
    await queue.add('submission', parsed.data, { removeOnComplete: true });
  } finally {
    await queue.close();
    await connection.quit().catch(() => connection.disconnect());
  }
}
