/** One `--agent NAME=MAPPING.json`: an HTTP agent serving NAME, calling out as the mapping says. */
export interface UpAgent {
  name: string;
  mappingFile: string;
  /** Its own environment (`--agent-env NAME:KEY=VALUE`), over what every service gets: `CONCURRENCY` above all. */
  env?: Record<string, string>;
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
  /**
   * Where Redis's append-only file, the embedded MongoDB's file and the logs are kept, so that a
   * restart on the same folder resumes every order; `undefined` with --in-memory (a throw-away run).
   */
  dataDir: string | undefined;
}

/** The data folder `sas up` keeps its state in when --data-dir is not given, in the working folder. */
export const DEFAULT_DATA_DIR = '.sas';

/** The raw option values `sas up` takes (as node:util parseArgs gives them). */
export interface UpArgs {
  workflows?: string;
  agent?: string[];
  schedulers?: string;
  supervisors?: string;
  'log-dir'?: string;
  'dashboard-port'?: string;
  'separate-processes'?: boolean;
  'data-dir'?: string;
  'in-memory'?: boolean;
  'agent-env'?: string[];
}

/** Usage of `sas up`, part of the CLI's help (`sas up --help` prints {@link COMMAND_HELP}'s entry). */
export const UP_USAGE = `  up [--workflows FILE] [--agent NAME=MAPPING.json ...] [--agent-env NAME:KEY=VALUE ...] [--schedulers N]
     [--supervisors N] [--data-dir DIR | --in-memory] [--log-dir DIR] [--dashboard-port N] [--separate-processes]
        run the core on your workflows, with its state in a data folder (default ./.sas), restarting
        any process that dies; sas up --help says more. Ctrl-C stops everything`;

/** Checks and converts `sas up`'s options; throws an error that names the option and what it takes. */
export function parseUpOptions(args: UpArgs): UpOptions {
  const agents: UpAgent[] = (args.agent ?? []).map((spec) => {
    const match = /^([a-z][a-z0-9-]*)=(.+)$/.exec(spec);
    if (!match) throw new Error(`--agent takes NAME=MAPPING.json, NAME lower-case letters, digits and - (got '${spec}')`);
    return { name: match[1] as string, mappingFile: match[2] as string };
  });
  const seen = new Set<string>();
  for (const a of agents) {
    if (seen.has(a.name)) throw new Error(`--agent ${a.name} is given twice; one HTTP agent per remote service`);
    seen.add(a.name);
  }
  for (const spec of args['agent-env'] ?? []) {
    const match = /^([a-z][a-z0-9-]*):([A-Z_][A-Z0-9_]*)=(.*)$/.exec(spec);
    if (!match) throw new Error(`--agent-env takes NAME:KEY=VALUE, e.g. payout:CONCURRENCY=4 (got '${spec}')`);
    const agent = agents.find((a) => a.name === match[1]);
    if (agent === undefined) throw new Error(`--agent-env ${spec}: no --agent ${String(match[1])} is given; name one of ${agents.map((a) => a.name).join(', ') || '(no --agent given)'}`);
    agent.env = { ...agent.env, [match[2] as string]: match[3] as string };
  }
  if (args['in-memory'] === true && args['data-dir'] !== undefined) throw new Error('--in-memory keeps nothing on disk and --data-dir keeps everything there: give one of them');
  return {
    workflowsFile: args.workflows,
    agents,
    dataDir: args['in-memory'] === true ? undefined : (args['data-dir'] ?? DEFAULT_DATA_DIR),
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
