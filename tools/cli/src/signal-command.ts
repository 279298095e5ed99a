import { sendSignal } from '@sas/client';
import { SignalResult, type JsonObject, type ProcessDocument } from '@sas/contracts';
import { MongoProcessStore, connectStore } from '@sas/store';
import type { CliEnv } from './cli-env';
import { recordCliAudit } from './cli-audit';
import { apiProcessLookup } from './api-process-lookup';
import { DashboardApi, explainApiRefusal } from './dashboard-api';
import type { OperatorPath } from './operator-path';
import { resolveProcess, type ProcessIdKind, type ProcessLookup } from './resolve-process';
import { terminalSafe } from './terminal-text';

/** Options of {@link runSignalCommand}. */
export interface SignalCommandArgs {
  /** Where the write goes, and who it names (see {@link OperatorPath}). */
  path: OperatorPath;
  /** The signal's name, as the workflow's signal step names it. */
  name: string;
  /** Becomes the signal step's result. */
  data: JsonObject | null;
  /** @default derived from the process, name and data, so running the same command again counts once */
  signalId?: string | undefined;
  /** Take the target as a process id only, or as an orderId only; both when absent. */
  only?: ProcessIdKind | undefined;
  /** How long to wait for a scheduler's answer (direct path; the dashboard waits on its own). @default 30000 */
  timeoutMs?: number | undefined;
}

/** What became of a signal sent: the scheduler's answer, or why there is none. */
export type SignalDelivery = { answered: true; result: SignalResult } | { answered: false; message: string };

/** What {@link signalProcess} talks to: the direct path's store and Redis, or the dashboard's API. */
export interface SignalCommandIo {
  lookup: ProcessLookup;
  /** Where the lookup looked, for "not found" answers. */
  where: string;
  send(processId: string, args: SignalCommandArgs): Promise<SignalDelivery>;
  /** Records the write (direct path); resolves with a warning to print when it could not. @default not recorded here (the dashboard audits API writes) */
  audit?(outcome: 'ok' | 'refused' | 'failed', exitCode: number, doc: ProcessDocument | undefined, detail: string): Promise<string | undefined>;
}

/**
 * `sas signal <processId|orderId> --name NAME [--data JSON]`: finds the process (saying which id
 * matched, refusing an ambiguous one), sends the signal by its process id, and prints what the
 * scheduler answered: `consumed` by the step waiting for it, `kept` until that step comes up, a
 * `repeat` counted once, or refused. Returns the exit code: 0 the process has the signal; 1 when it
 * was not applied (refused, not found, invalid) or no scheduler answered.
 */
export async function runSignalCommand(env: CliEnv, target: string, args: SignalCommandArgs, out: (line: string) => void): Promise<number> {
  if (args.path.kind === 'api') return signalProcess(apiIo(new DashboardApi(args.path.baseUrl, args.path.token)), target, args, out);
  const connection = await connectStore(env.mongoUrl, env.mongoDb);
  try {
    return await signalProcess(directIo(env, new MongoProcessStore(connection.db), args.path.principal), target, args, out);
  } finally {
    await connection.close();
  }
}

/** {@link runSignalCommand} over the given I/O (tests give their own). */
export async function signalProcess(io: SignalCommandIo, target: string, args: SignalCommandArgs, print: (line: string) => void): Promise<number> {
  // Stored text (ids, reasons, errors, history) is someone else's input: shown, never obeyed.
  const out = terminalSafe(print);
  const resolved = await resolveProcess(io.lookup, target, io.where, args.only);
  const audit = async (outcome: 'ok' | 'refused' | 'failed', exitCode: number, doc: ProcessDocument | undefined, detail: string): Promise<void> => {
    const warning = await io.audit?.(outcome, exitCode, doc, detail);
    if (warning) out(warning);
  };
  if (!resolved.found) {
    out(`refused: ${resolved.message}`);
    await audit('refused', 1, undefined, resolved.message);
    return 1;
  }
  out(resolved.line);
  let delivery: SignalDelivery;
  try {
    delivery = await io.send(resolved.doc._id, args);
  } catch (e) {
    await audit('failed', 1, resolved.doc, `signal ${args.name}: ${e instanceof Error ? e.message : String(e)}`);
    throw e;
  }
  if (!delivery.answered) {
    out(`no answer: ${delivery.message}`);
    await audit('failed', 1, resolved.doc, `signal ${args.name}: ${delivery.message}`);
    return 1;
  }
  const { result } = delivery;
  // Not applied for whatever reason (refused, no such process, an invalid signal): exit 1, the outcome named.
  const label = result.ok ? result.outcome : result.outcome === 'refused' ? 'refused' : `refused (${result.outcome})`;
  out(`${label}: ${result.message} (signal id ${result.signalId})`);
  await audit(result.ok ? 'ok' : 'refused', result.ok ? 0 : 1, resolved.doc, `signal ${args.name} (${result.signalId}): ${result.outcome}`);
  return result.ok ? 0 : 1;
}

/** The direct path: MongoDB for the lookup, Redis for the signal, the CLI's own audit entry. */
function directIo(env: CliEnv, store: ProcessLookup, principal: string): SignalCommandIo {
  return {
    lookup: store,
    where: `database ${env.mongoDb}`,
    async send(processId, args) {
      const timeoutMs = args.timeoutMs ?? 30_000;
      const outcome = await sendSignal({ redisUrl: env.redisUrl, prefix: env.prefix }, { processId }, args.name, args.data, {
        by: principal,
        timeoutMs,
        ...(args.signalId !== undefined && { signalId: args.signalId }),
      });
      if (outcome.answered) return { answered: true, result: outcome.reply };
      return { answered: false, message: `no scheduler answered within ${timeoutMs} ms; are schedulers running on REDIS_URL with QUEUE_PREFIX=${env.prefix}? Running the same command again is safe: the signal counts once` };
    },
    audit: (outcome, exitCode, doc, detail) =>
      recordCliAudit(env, { action: 'process.signal', principal, command: 'signal', target: `process ${doc?._id ?? '?'}`, orderId: doc?.orderId, outcome, exitCode, detail }),
  };
}

/** The API path: the dashboard's reads for the lookup, its signal route for the write (audited there). */
function apiIo(api: DashboardApi): SignalCommandIo {
  return {
    lookup: apiProcessLookup(api),
    where: `the dashboard at ${api.baseUrl}`,
    async send(processId, args) {
      const body = { name: args.name, data: args.data, ...(args.signalId !== undefined && { signalId: args.signalId }) };
      const answer = await api.send('POST', `/api/processes/${encodeURIComponent(processId)}/signal`, body);
      // 200 carries the answer; a refusal (404, 409) carries it as `result`.
      const result = SignalResult.safeParse(answer.status === 200 ? answer.body : answer.body['result']);
      if (result.success) return { answered: true, result: result.data };
      return { answered: false, message: explainApiRefusal(answer, api.baseUrl) };
    },
  };
}

/** The `--data` option: a JSON object (or `null`); whether it is small enough is the signal's own check. */
export function parseSignalData(text: string): JsonObject | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error(`--data is not JSON (${e instanceof Error ? e.message : String(e)}); pass an object, e.g. --data '{"approved":true}'`);
  }
  if (parsed === null) return null;
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`--data must be a JSON object such as '{"approved":true}' (got ${text})`);
  return parsed as JsonObject;
}
