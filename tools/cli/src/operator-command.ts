import { SasClient } from '@sas/client';
import type { OperatorCommandResult, ProcessDocument } from '@sas/contracts';
import { MongoProcessStore, connectStore } from '@sas/store';
import type { CliEnv } from './cli-env';
import { recordCliAudit } from './cli-audit';
import { apiProcessLookup } from './api-process-lookup';
import { DashboardApi, explainApiRefusal } from './dashboard-api';
import type { OperatorPath } from './operator-path';
import { resolveProcess, type ProcessIdKind } from './resolve-process';
import { terminalSafe } from './terminal-text';

/** Options of {@link runOperatorCommand}. */
export interface OperatorCommandArgs {
  /** Where the write goes, and who it names (see {@link OperatorPath}). */
  path: OperatorPath;
  reason?: string | undefined;
  /** Take the target as a process id only, or as an orderId only; both when absent. */
  only?: ProcessIdKind | undefined;
  /** How long to wait for a scheduler's answer (direct path; the dashboard waits on its own). @default 30000 */
  timeoutMs?: number | undefined;
}

/**
 * `sas resubmit|cancel <processId|orderId>`: finds the process (by process id or orderId, see
 * {@link resolveProcess}), says which matched, then sends the command by its process id and prints
 * the answer. On the API path the dashboard sends it and audits it under the token's principal; on
 * the direct path the CLI sends it with `@sas/client` and audits it itself. Returns the exit code:
 * 0 done, 1 refused or not found.
 *
 * @throws NoAnswerError when no scheduler answers in time (direct path; recorded as failed first).
 */
export async function runOperatorCommand(env: CliEnv, command: 'resubmit' | 'cancel', target: string, args: OperatorCommandArgs, print: (line: string) => void): Promise<number> {
  // Stored text (ids, reasons, errors, history) is someone else's input: shown, never obeyed.
  const out = terminalSafe(print);
  if (args.path.kind === 'api') return viaApi(new DashboardApi(args.path.baseUrl, args.path.token), command, target, args, out);
  const principal = args.path.principal;
  const audit = async (outcome: 'ok' | 'refused' | 'failed', exitCode: number, doc: ProcessDocument | undefined, detail: string | undefined): Promise<void> => {
    const warning = await recordCliAudit(env, {
      action: `process.${command}`,
      principal,
      command,
      target: `process ${doc?._id ?? target}`,
      orderId: doc?.orderId,
      outcome,
      exitCode,
      detail: detail ?? args.reason,
    });
    if (warning) out(warning);
  };
  const connection = await connectStore(env.mongoUrl, env.mongoDb);
  let resolved;
  try {
    resolved = await resolveProcess(new MongoProcessStore(connection.db), target, `database ${env.mongoDb}`, args.only);
  } finally {
    await connection.close();
  }
  if (!resolved.found) {
    out(`refused: ${resolved.message}`);
    await audit('refused', 1, undefined, resolved.message);
    return 1;
  }
  out(resolved.line);
  let result: OperatorCommandResult;
  try {
    result = await sendOperatorCommand(env, command, resolved.doc._id, principal, args.reason, args.timeoutMs);
  } catch (e) {
    await audit('failed', 1, resolved.doc, e instanceof Error ? e.message : String(e));
    throw e;
  }
  out(`${result.ok ? 'done' : 'refused'}: ${result.message}`);
  await audit(result.ok ? 'ok' : 'refused', result.ok ? 0 : 1, resolved.doc, result.ok ? undefined : result.message);
  return result.ok ? 0 : 1;
}

/**
 * The API path: resolves the target with the API's reads (so an id that is one process's id and
 * another's orderId is refused as on the direct path), then posts the command by process id.
 */
async function viaApi(api: DashboardApi, command: 'resubmit' | 'cancel', target: string, args: OperatorCommandArgs, out: (line: string) => void): Promise<number> {
  const lookup = apiProcessLookup(api);
  const resolved = await resolveProcess(lookup, target, `the dashboard at ${api.baseUrl}`, args.only);
  if (!resolved.found) {
    out(`refused: ${resolved.message}`);
    return 1;
  }
  out(resolved.line);
  const answer = await api.send('POST', `/api/processes/${encodeURIComponent(resolved.doc._id)}/${command}`, args.reason ? { reason: args.reason } : {});
  if (answer.status === 200) {
    out(`done: ${String(answer.body['message'])}`);
    return 0;
  }
  out(`refused: ${explainApiRefusal(answer, api.baseUrl)}`);
  return 1;
}

/**
 * Sends `resubmit` or `cancel` to the schedulers through `@sas/client` and waits for their answer
 * on a private reply queue. Resolves with the result; rejects with a `NoAnswerError` when no
 * scheduler answers in time.
 */
async function sendOperatorCommand(env: CliEnv, command: 'resubmit' | 'cancel', processId: string, by: string, reason?: string, timeoutMs = 30_000): Promise<OperatorCommandResult> {
  const client = new SasClient({ redisUrl: env.redisUrl, prefix: env.prefix });
  try {
    const options = { by, timeoutMs, ...(reason ? { reason } : {}) };
    return command === 'cancel' ? await client.cancel(processId, options) : await client.resubmit(processId, options);
  } finally {
    await client.close();
  }
}
