import { readFileSync } from 'node:fs';
import { JobSpecificationService, MongoJobStore, ensureJobIndexes } from '@sas/jobs';
import { systemClock } from '@sas/runtime';
import { connectStore } from '@sas/store';
import { recordCliAudit } from './cli-audit';
import type { CliEnv } from './cli-env';
import { renderJobDetails, renderJobLine } from './jobs-render';
import { terminalSafe } from './terminal-text';

/** Arguments of `sas jobs <action>`, as parsed from the command line. */
export interface JobsCommandArgs {
  action: string | undefined;
  key: string | undefined;
  file: string | undefined;
  requestor: string | undefined;
  all: boolean;
  /** The name the job's own history records (`--by`); the CLI's principal when not given. */
  by: string;
  /** `cli:<user>@<host>`: whom the audit log names for a create or cancel. */
  principal: string;
}

/** Usage of the `jobs` subcommand, part of the CLI's help. */
export const JOBS_USAGE = `  jobs create --file spec.json       create a job specification (cron or one-off)
  jobs list [--requestor R] [--all]  list scheduled jobs (--all: finished ones too)
  jobs show <key>                    a job and its status history
  jobs cancel <key> [--by NAME]      cancel a scheduled job; it never fires again`;

const DAY_MS = 24 * 60 * 60 * 1000;

/** JOBS_RETENTION_MS as the scheduler reads it: how long a canceled job is kept. */
function retentionMs(env: NodeJS.ProcessEnv): number {
  const raw = env['JOBS_RETENTION_MS'];
  if (raw === undefined) return 7 * DAY_MS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`JOBS_RETENTION_MS must be a positive number of milliseconds (got '${raw}')`);
  return n;
}

function readSpecFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`Cannot read job specification file '${file}': ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new Error(`Job specification file '${file}' is not JSON: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

/**
 * `sas jobs …`: manages job specifications straight in MongoDB (MONGO_URL, MONGO_DB) through the
 * same `JobSpecificationService` the dashboard uses; running schedulers pick changes up at their
 * next poll. Returns the exit code; refusals print their reason and return 1.
 */
export async function runJobsCommand(env: CliEnv, args: JobsCommandArgs, print: (line: string) => void, processEnv: NodeJS.ProcessEnv = process.env): Promise<number> {
  // Stored text (ids, reasons, errors, history) is someone else's input: shown, never obeyed.
  const out = terminalSafe(print);
  const { action, key } = args;
  if (action !== 'create' && action !== 'list' && action !== 'show' && action !== 'cancel') {
    throw new Error(`jobs needs an action: create, list, show or cancel (got '${action ?? ''}')\n${JOBS_USAGE}`);
  }
  if (action === 'create' && !args.file) throw new Error('jobs create needs --file spec.json');
  if ((action === 'show' || action === 'cancel') && !key) throw new Error(`jobs ${action} needs a job specification key`);
  const spec = action === 'create' && args.file ? readSpecFile(args.file) : undefined;
  const connection = await connectStore(env.mongoUrl, env.mongoDb);
  try {
    await ensureJobIndexes(connection.db);
    const jobs = new JobSpecificationService(new MongoJobStore(connection.db), { clock: systemClock, retentionMs: retentionMs(processEnv) });
    switch (action) {
      case 'create': {
        const created = await jobs.create(spec, args.by);
        const specKey = typeof spec === 'object' && spec !== null ? (spec as { jobSpecificationKey?: unknown }).jobSpecificationKey : undefined;
        await audit(env, args, out, 'job.create', `job ${created.ok ? created.job.jobSpecificationKey : String(specKey ?? '?')}`, created.ok ? undefined : created.message);
        if (!created.ok) return refuse(out, created.message);
        out(`created job ${created.job.jobSpecificationKey} (${created.job._id}): SCHEDULED, first fire ${created.job.nextFireTime?.toISOString() ?? '-'}`);
        return 0;
      }
      case 'list': {
        const list = await jobs.list({ ...(args.requestor !== undefined ? { requestor: args.requestor } : {}), includeFinished: args.all });
        if (list.length === 0) out('no jobs');
        for (const job of list) out(renderJobLine(job));
        return 0;
      }
      case 'show': {
        const shown = await jobs.show(key ?? '');
        if (!shown) return refuse(out, `No job with key '${key}' in ${env.mongoDb} (finished jobs are removed after their deleteTime)`);
        for (const line of renderJobDetails(shown)) out(line);
        return 0;
      }
      case 'cancel': {
        const canceled = await jobs.cancel(key ?? '', args.by);
        await audit(env, args, out, 'job.cancel', `job ${key ?? ''}`, canceled.ok ? undefined : canceled.message);
        if (!canceled.ok) return refuse(out, canceled.message);
        out(`canceled job ${canceled.job.jobSpecificationKey}; removed after ${canceled.job.deleteTime?.toISOString() ?? '-'}`);
        return 0;
      }
    }
  } finally {
    await connection.close();
  }
}

/**
 * Records a create or cancel in the audit log, as the other direct-path writes do: under the CLI's
 * self-reported principal, with the name the job's history got when `--by` gave another one.
 */
async function audit(env: CliEnv, args: JobsCommandArgs, out: (line: string) => void, action: string, target: string, refusal: string | undefined): Promise<void> {
  const named = args.by === args.principal ? undefined : `recorded in the job's history as by '${args.by}'`;
  const detail = [refusal, named].filter((d) => d !== undefined).join('; ');
  const warning = await recordCliAudit(env, {
    action,
    principal: args.principal,
    command: `jobs ${args.action ?? ''}`,
    target,
    outcome: refusal === undefined ? 'ok' : 'refused',
    exitCode: refusal === undefined ? 0 : 1,
    ...(detail ? { detail } : {}),
  });
  if (warning) out(warning);
}

function refuse(out: (line: string) => void, message: string): number {
  out(`refused: ${message}`);
  return 1;
}
