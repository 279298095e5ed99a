/** One `--agent NAME=MAPPING.json`: an HTTP agent serving NAME, calling out as the mapping says. */
export interface UpAgent {
  name: string;
  mappingFile: string;
}

/** What `sas up` runs, parsed from its options by {@link parseUpOptions}. */
export interface UpOptions {
  /** The WORKFLOWS_FILE every core service loads (besides the built-in workflows); none: built-ins only. */
  workflowsFile?: string;
  agents: UpAgent[];
  schedulers: number;
  supervisors: number;
  /** Where each service's log goes; a new folder under the temp dir when not given. */
  logDir?: string;
  /** The dashboard's port; 0 picks a free one. */
  dashboardPort: number;
  /** Submission, the first scheduler and the first supervisor in one process (`core-1`); false with --separate-processes. */
  sharedCore: boolean;
}

/** The raw option values `sas up` takes (as node:util parseArgs gives them). */
export interface UpArgs {
  workflows?: string;
  agent?: string[];
  schedulers?: string;
  supervisors?: string;
  'log-dir'?: string;
  'dashboard-port'?: string;
  'separate-processes'?: boolean;
}

/** Usage of `sas up`, part of the CLI's help. */
export const UP_USAGE = `  up [--workflows FILE] [--agent NAME=MAPPING.json ...] [--schedulers N] [--supervisors N]
     [--log-dir DIR] [--dashboard-port N] [--separate-processes]
        run the core on your workflows: submission, schedulers, supervisors, the dashboard and one
        HTTP agent per --agent; submission, one scheduler and one supervisor share a process (core-1)
        unless --separate-processes, every other service is its own process; REDIS_URL/MONGO_URL
        when set, else a private redis-server and MongoDB as resolved. Ctrl-C stops everything`;

/** Checks and converts `sas up`'s options; throws an error that names the option and what it takes. */
export function parseUpOptions(args: UpArgs): UpOptions {
  const agents = (args.agent ?? []).map((spec) => {
    const match = /^([a-z][a-z0-9-]*)=(.+)$/.exec(spec);
    if (!match) throw new Error(`--agent takes NAME=MAPPING.json, NAME lower-case letters, digits and - (got '${spec}')`);
    return { name: match[1] as string, mappingFile: match[2] as string };
  });
  const seen = new Set<string>();
  for (const a of agents) {
    if (seen.has(a.name)) throw new Error(`--agent ${a.name} is given twice; one HTTP agent per remote service`);
    seen.add(a.name);
  }
  return {
    workflowsFile: args.workflows,
    agents,
    schedulers: count('--schedulers', args.schedulers, 1),
    supervisors: count('--supervisors', args.supervisors, 1),
    logDir: args['log-dir'],
    dashboardPort: port(args['dashboard-port']),
    sharedCore: args['separate-processes'] !== true,
  };
}

function count(option: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 16) throw new Error(`${option} must be a whole number from 1 to 16 (got '${value}')`);
  return n;
}

function port(value: string | undefined): number {
  if (value === undefined) return 0;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`--dashboard-port must be a port number, 0 for any free one (got '${value}')`);
  return n;
}
