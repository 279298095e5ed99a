import { SasClient } from '@sas/client';
import type { OperatorCommandResult } from '@sas/contracts';
import { MongoProcessStore, connectStore } from '@sas/store';
import type { CliEnv } from './cli-env';
import { resolveProcess, type ProcessIdKind } from './resolve-process';

/** Options of {@link runOperatorCommand}. */
export interface OperatorCommandArgs {
  /** Who asks; goes into the process history. */
  by: string;
  reason?: string | undefined;
  /** Take the target as a process id only, or as an orderId only; both when absent. */
  only?: ProcessIdKind | undefined;
  /** How long to wait for a scheduler's answer. @default 30000 */
  timeoutMs?: number | undefined;
}

/**
 * `sas resubmit|cancel <processId|orderId>`: finds the process in MongoDB (by process id or
 * orderId, see {@link resolveProcess}), says which matched, then sends the command to the
 * schedulers by its process id and prints their answer. Returns the exit code: 0 done, 1 refused
 * or not found.
 *
 * @throws NoAnswerError when no scheduler answers in time.
 */
export async function runOperatorCommand(
  env: CliEnv,
  command: 'resubmit' | 'cancel',
  target: string,
  args: OperatorCommandArgs,
  out: (line: string) => void,
): Promise<number> {
  const connection = await connectStore(env.mongoUrl, env.mongoDb);
  let resolved;
  try {
    resolved = await resolveProcess(new MongoProcessStore(connection.db), target, `database ${env.mongoDb}`, args.only);
  } finally {
    await connection.close();
  }
  if (!resolved.found) {
    out(`refused: ${resolved.message}`);
    return 1;
  }
  out(resolved.line);
  const result = await sendOperatorCommand(env, command, resolved.doc._id, args.by, args.reason, args.timeoutMs);
  out(`${result.ok ? 'done' : 'refused'}: ${result.message}`);
  return result.ok ? 0 : 1;
}

/**
 * Sends `resubmit` or `cancel` to the schedulers through `@sas/client` and waits for their answer
 * on a private reply queue. Resolves with the result; rejects with a `NoAnswerError` when no
 * scheduler answers in time.
 */
async function sendOperatorCommand(
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
