import { setTimeout as sleep } from 'node:timers/promises';
import { BulkOperationService, MongoBulkCandidates, MongoBulkOperationStore, ensureBulkIndexes } from '@sas/bulk';
import { BulkOperationRequest, type BulkOperationDocument } from '@sas/contracts';
import { systemClock } from '@sas/runtime';
import { connectStore } from '@sas/store';
import type { CliEnv } from './cli-env';
import { recordCliAudit } from './cli-audit';
import { DashboardApi, explainApiRefusal } from './dashboard-api';
import { type FilterOptions, rawFilter } from './filter-options';
import type { OperatorPath } from './operator-path';
import { terminalSafe } from './terminal-text';

/** Arguments of `sas bulk <action>`, as parsed from the command line. */
export interface BulkCommandArgs extends FilterOptions {
  action: string | undefined;
  id: string | undefined;
  reason: string | undefined;
  /** Where a resubmit or cancel goes, and who it names (see {@link OperatorPath}); show and list read MongoDB. */
  path: OperatorPath;
  dryRun: boolean;
  /** Return once the operation is created instead of following its progress. */
  noWait: boolean;
}

/** Usage of the `bulk` subcommand, part of the CLI's help. */
export const BULK_USAGE = `  bulk resubmit|cancel --state S[,S] --reason TEXT [--workflow W] [--failed-step STEP]
        [--since T] [--until T] [--time-field updatedAt|createdAt] [--text WORDS] [--id ID] [--dry-run] [--no-wait]
                                     resubmit or cancel every process the filter selects, as one durable
                                     operation a scheduler runs; prints progress until it is done
  bulk show <id>                     an operation's progress and the processes it could not act on
  bulk list                          the latest operations`;

/** The request the options describe; throws with what to fix when they are wrong. */
function bulkRequestFromArgs(args: BulkCommandArgs): BulkOperationRequest {
  const filter = rawFilter(args, args.state);
  const parsed = BulkOperationRequest.safeParse({ command: args.action, filter, reason: args.reason, ...(args.id !== undefined ? { id: args.id } : {}), ...(args.dryRun ? { dryRun: true } : {}) });
  // The schema's messages name the field and say what to give: the options carry the same names.
  if (!parsed.success) throw new Error(`bulk ${args.action}: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  return parsed.data;
}

/** One line of an operation's state and progress. */
function renderBulkLine(op: BulkOperationDocument): string {
  const p = op.progress;
  return `${op._id} ${op.command} ${op.state}: ${p.matched} of about ${op.expected} processes (${p.done} done, ${p.refused} refused, ${p.failed} failed) · by ${op.by} · ${op.reason}`;
}

/**
 * `sas bulk …`: creates a bulk operation through the dashboard's API (API path, audited there), or
 * straight in MongoDB (MONGO_URL, MONGO_DB) through the same `BulkOperationService` the dashboard
 * uses, audited by the CLI (direct path); a running scheduler picks the operation up. Follows its
 * progress until it is finished (or `timeoutMs` passes: it goes on without the CLI).
 */
export async function runBulkCommand(env: CliEnv, args: BulkCommandArgs, print: (line: string) => void, timeoutMs = 600_000): Promise<number> {
  // Stored text (ids, reasons, errors, history) is someone else's input: shown, never obeyed.
  const out = terminalSafe(print);
  const { action } = args;
  if (action !== 'resubmit' && action !== 'cancel' && action !== 'show' && action !== 'list') {
    throw new Error(`bulk needs an action: resubmit, cancel, show or list (got '${action ?? ''}')\n${BULK_USAGE}`);
  }
  if (action === 'show' && !args.id) throw new Error('bulk show needs an operation id');
  const request = action === 'resubmit' || action === 'cancel' ? bulkRequestFromArgs(args) : undefined;
  if (request && args.path.kind === 'api') return bulkViaApi(new DashboardApi(args.path.baseUrl, args.path.token), request, args.noWait, out, timeoutMs);
  const connection = await connectStore(env.mongoUrl, env.mongoDb);
  try {
    await ensureBulkIndexes(connection.db);
    const service = new BulkOperationService(new MongoBulkOperationStore(connection.db), new MongoBulkCandidates(connection.db), systemClock);
    if (action === 'list') {
      const ops = await service.list(20);
      if (ops.length === 0) out('no bulk operations');
      for (const op of ops) out(renderBulkLine(op));
      return 0;
    }
    if (action === 'show') {
      const op = await service.get(args.id ?? '');
      if (!op) {
        out(`refused: no bulk operation '${args.id}' in ${env.mongoDb} (finished ones are removed after their retention)`);
        return 1;
      }
      out(renderBulkLine(op));
      for (const problem of op.problems) out(`  ${problem.outcome} ${problem.processId}: ${problem.message}`);
      return 0;
    }
    const created = request as BulkOperationRequest;
    const principal = args.path.kind === 'direct' ? args.path.principal : '';
    const audit = async (outcome: 'ok' | 'refused' | 'failed', exitCode: number, target: string | undefined, problem?: string): Promise<void> => {
      const action = created.dryRun ? 'bulk.dry-run' : `bulk.${created.command}`;
      const detail = `${problem ? `${problem}; ` : ''}${created.reason}; filter ${JSON.stringify(created.filter)}`;
      const warning = await recordCliAudit(env, { action, principal, command: `bulk ${created.command}`, target, outcome, exitCode, detail });
      if (warning) out(warning);
    };
    let outcome;
    try {
      outcome = await service.create(created, principal);
    } catch (e) {
      await audit('failed', 1, undefined, e instanceof Error ? e.message : String(e));
      throw e;
    }
    if (outcome.kind === 'dry-run') {
      out(`dry run: ${outcome.matched} processes match; nothing started`);
      await audit('ok', 0, undefined);
      return 0;
    }
    if (outcome.kind === 'conflict') {
      out(`refused: ${outcome.message}`);
      await audit('refused', 1, `bulk ${outcome.operation._id}`, outcome.message);
      return 1;
    }
    out(`${outcome.kind === 'created' ? 'started' : 'already started'} bulk operation ${outcome.operation._id}: about ${outcome.operation.expected} processes`);
    await audit('ok', 0, `bulk ${outcome.operation._id}`);
    if (args.noWait) return 0;
    return await follow((id) => service.get(id), outcome.operation._id, out, timeoutMs);
  } finally {
    await connection.close();
  }
}

/** The API path: posts the request, prints the dashboard's answer, and follows the operation through the API. */
async function bulkViaApi(api: DashboardApi, request: BulkOperationRequest, noWait: boolean, out: (line: string) => void, timeoutMs: number): Promise<number> {
  const answer = await api.send('POST', '/api/bulk', request);
  if (answer.status === 200 && answer.body['dryRun'] === true) {
    out(`dry run: ${String(answer.body['matched'])} processes match; nothing started`);
    return 0;
  }
  if (answer.status !== 200 && answer.status !== 202) {
    out(`refused: ${explainApiRefusal(answer, api.baseUrl)}`);
    return 1;
  }
  const op = answer.body['operation'] as BulkOperationDocument;
  out(`${answer.status === 202 ? 'started' : 'already started'} bulk operation ${op._id}: about ${op.expected} processes`);
  if (noWait) return 0;
  return follow(
    async (id) => {
      const read = await api.send('GET', `/api/bulk/${encodeURIComponent(id)}`);
      if (read.status === 404) return null;
      if (read.status !== 200) throw new Error(`the dashboard refused to show bulk operation ${id}: ${explainApiRefusal(read, api.baseUrl)}`);
      return read.body as unknown as BulkOperationDocument;
    },
    op._id,
    out,
    timeoutMs,
  );
}

/** Prints each change of progress until the operation is finished. */
async function follow(get: (id: string) => Promise<BulkOperationDocument | null>, id: string, out: (line: string) => void, timeoutMs: number): Promise<number> {
  const until = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const op = await get(id);
    if (!op) throw new Error(`bulk operation ${id} disappeared (removed after its retention?)`);
    const line = renderBulkLine(op);
    if (line !== last) out(line);
    last = line;
    if (op.state === 'Finished') {
      for (const problem of op.problems) out(`  ${problem.outcome} ${problem.processId}: ${problem.message}`);
      return op.progress.failed > 0 ? 1 : 0;
    }
    if (Date.now() > until) {
      out(`still running after ${timeoutMs} ms; it goes on in the schedulers: follow it with sas bulk show ${id}`);
      return 0;
    }
    await sleep(500);
  }
}
