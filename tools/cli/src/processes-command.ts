import { bulkFilterQuery, matchesBulkFilter } from '@sas/bulk';
import { BulkFilter, ProcessState, type ProcessDocument } from '@sas/contracts';
import { CollectionNames, connectStore } from '@sas/store';
import type { CliEnv } from './cli-env';
import { type FilterOptions, rawFilter } from './filter-options';
import { ProcessTally, renderCounts, renderProcessLine, type ListedProcess } from './process-tally';
import { terminalSafe } from './terminal-text';

/** Arguments of `sas processes`, as parsed from the command line. */
export interface ProcessesArgs extends FilterOptions {
  limit: string | undefined;
}

/** How many processes are listed when `--limit` is not given. */
const DEFAULT_PROCESSES_LIMIT = 20;

/** Only what the filter and a listing line read: never payloads, results or outboxes. */
const PROJECTION = { _id: 1, orderId: 1, state: 1, workflow: 1, createdAt: 1, updatedAt: 1, reason: 1, currentStep: 1, 'steps.name': 1, 'steps.error': 1 } as const;

// A listing is bounded by no operation's start: every process created so far (whatever the
// clock of the host that runs the CLI says) is a candidate.
const END_OF_TIME = new Date(8.64e15);

/**
 * The filter the options describe: the bulk filter (`sas bulk`, `POST /api/bulk`), so a listing
 * shows exactly what a bulk operation with the same options would act on. Without `--state`,
 * every state. Throws with what to fix when an option is wrong.
 */
export function processesFilterFromArgs(args: ProcessesArgs): { filter: BulkFilter; limit: number } {
  const limit = args.limit === undefined ? DEFAULT_PROCESSES_LIMIT : Number(args.limit);
  if (!Number.isInteger(limit) || limit < 0 || limit > 10_000) {
    throw new Error(`processes: --limit must be a whole number from 0 to 10000 (got '${args.limit}'); 0 prints the counts only`);
  }
  const parsed = BulkFilter.safeParse(rawFilter(args, args.state ?? [...ProcessState.options]));
  if (!parsed.success) throw new Error(`processes: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  return { filter: parsed.data, limit };
}

/** What the filter selects, as a reader would say it: `state Error · workflow shop`. */
export function describeFilter(filter: BulkFilter, stateGiven: boolean): string {
  const parts: string[] = [];
  if (stateGiven) parts.push(`state ${filter.state.join(',')}`);
  if (filter.workflow !== undefined) parts.push(`workflow ${filter.workflow}`);
  if (filter.failedStep !== undefined) parts.push(`at step ${filter.failedStep}`);
  if (filter.since) parts.push(`${filter.timeField} ≥ ${filter.since.toISOString()}`);
  if (filter.until) parts.push(`${filter.timeField} < ${filter.until.toISOString()}`);
  if (filter.text !== undefined) parts.push(`mentioning '${filter.text}'`);
  return parts.length === 0 ? 'all processes' : parts.join(' · ');
}

/** The report of a tally: counts by state, workflow and step, then the latest processes. */
export function renderTally(tally: ProcessTally, selection: string, limit: number): string[] {
  const lines = [
    `${tally.total} process${tally.total === 1 ? '' : 'es'} (${selection})`,
    `  by state:    ${renderCounts(tally.byState)}`,
    `  by workflow: ${renderCounts(tally.byWorkflow)}`,
    `  by step:     ${renderCounts(tally.byStep)}   (the current step; for Error, the step that failed)`,
  ];
  const latest = tally.latest();
  if (limit > 0 && latest.length > 0) {
    lines.push(latest.length < tally.total ? `latest ${latest.length} (--limit N for more):` : 'all of them, latest first:');
    for (const doc of latest) lines.push(`  ${renderProcessLine(doc)}`);
  }
  return lines;
}

/**
 * `sas processes`: counts the processes the filter selects by state, workflow and current step,
 * and lists the latest ones, reading MongoDB (MONGO_URL, MONGO_DB) as `sas status` does. The
 * filter is the bulk filter's: MongoDB narrows by its query, {@link matchesBulkFilter} decides.
 */
export async function runProcessesCommand(env: CliEnv, args: ProcessesArgs, print: (line: string) => void): Promise<number> {
  // Stored text (ids, reasons, errors, history) is someone else's input: shown, never obeyed.
  const out = terminalSafe(print);
  const { filter, limit } = processesFilterFromArgs(args);
  const connection = await connectStore(env.mongoUrl, env.mongoDb);
  try {
    const processes = connection.db.collection<ProcessDocument>(CollectionNames.processes);
    const tally = new ProcessTally(limit);
    const cursor = processes.find(bulkFilterQuery(filter, END_OF_TIME), { projection: PROJECTION });
    for await (const doc of cursor) {
      const candidate = doc as unknown as ListedProcess;
      if (matchesBulkFilter(candidate, filter, END_OF_TIME)) tally.add(candidate);
    }
    for (const line of renderTally(tally, describeFilter(filter, args.state !== undefined), limit)) out(line);
    return 0;
  } finally {
    await connection.close();
  }
}
