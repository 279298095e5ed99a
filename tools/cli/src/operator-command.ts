import { SasClient } from '@sas/client';
import type { OperatorCommandResult } from '@sas/contracts';
import type { CliEnv } from './cli-env';

/**
 * Sends `resubmit` or `cancel` to the schedulers through `@sas/client` and waits for their answer
 * on a private reply queue. Resolves with the result; rejects with a `NoAnswerError` when no
 * scheduler answers in time.
 */
export async function sendOperatorCommand(
  env: CliEnv,
  command: 'resubmit' | 'cancel',
  processId: string,
  by: string,
  reason?: string,
  timeoutMs = 30_000,
): Promise<OperatorCommandResult> {
  const client = new SasClient({ redisUrl: env.redisUrl, prefix: env.prefix });
  try {
    const options = { by, timeoutMs, ...(reason ? { reason } : {}) };
    return command === 'cancel' ? await client.cancel(processId, options) : await client.resubmit(processId, options);
  } finally {
    await client.close();
  }
}
