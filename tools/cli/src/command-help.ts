/** One command's help: what `sas <command> --help` prints, and what docs/cli.md documents. */
export interface CommandHelp {
  /** The synopsis lines, each starting with `sas `. */
  usage: string[];
  /** What it does, in a sentence or two. */
  summary: string;
  /** Each option and what it means. */
  options: [flag: string, meaning: string][];
  /** The environment it reads. */
  env: string;
  /** A command line an operator would type. */
  example: string;
}

const STORE = 'MONGO_URL, MONGO_DB (the services\' values)';
const BUS = 'REDIS_URL, QUEUE_PREFIX (the services\' values)';
const BY: [string, string] = ['--by NAME', "who asks, recorded in the job's history (default: cli:<user>@<host>); create and cancel are audited as cli:<user>@<host>"];
/** How an operator write finds the dashboard's API (see docs/cli.md, "Two ways to write"). */
const API = 'SAS_DASHBOARD_URL and SAS_DASHBOARD_TOKEN (both: through the dashboard\'s API, audited under the token\'s principal; neither: direct, audited as cli:<user>@<host>)';
const EITHER_ID: [string, string][] = [
  ['--process-id ID', 'take ID as a process id only'],
  ['--order-id ID', 'take ID as an orderId only (instead of the argument)'],
];
const FILTER: [string, string][] = [
  ['--state S[,S]', 'states, e.g. Error or Pending,Processing'],
  ['--workflow NAME', 'one workflow'],
  ['--failed-step STEP', 'processes standing at this step (for Error: the step that failed)'],
  ['--since T / --until T', 'ISO instant or epoch ms, on --time-field (updatedAt, or createdAt)'],
  ['--text WORDS', 'the reason or a step error contains these words (any case)'],
];

/**
 * Every command's help, by command name. `sas <command> --help` prints it; a test holds
 * docs/cli.md to it, so the page and the tool say the same.
 */
export const COMMAND_HELP: Readonly<Record<string, CommandHelp>> = {
  demo: {
    usage: ['sas demo [--orders N] [--faults none|mild|chaos] [--keep] [--timeout-ms N]'],
    summary: 'Start the whole system locally (private Redis unless REDIS_URL, MongoDB as resolved), submit demo orders, show progress and a summary.',
    options: [
      ['--orders N', 'how many orders, 1 to 10000 (default 20)'],
      ['--faults LEVEL', 'none, mild (default) or chaos: faults remote-sim injects'],
      ['--keep', 'keep the system running after the summary, until Ctrl-C'],
      ['--timeout-ms N', 'give up when the orders are not finished after N ms (default 120000)'],
    ],
    env: 'REDIS_URL (optional), MONGO_URL (optional)',
    example: 'sas demo --orders 50 --faults chaos',
  },
  submit: {
    usage: ['sas submit --order-id ID [--workflow NAME] [--payload JSON] [--reply-to QUEUE]'],
    summary: 'Validate and submit one order through @sas/client, as an application does.',
    options: [
      ['--order-id ID', 'the order id (submitting it again is idempotent)'],
      ['--workflow NAME', 'the workflow to run (default order-fulfilment)'],
      ['--payload JSON', 'the order payload, a JSON object (default {})'],
      ['--reply-to QUEUE', 'the queue that receives the order\'s status events'],
    ],
    env: BUS,
    example: `sas submit --order-id o-1001 --payload '{"sku":"kettle","amount":30}'`,
  },
  status: {
    usage: ['sas status <processId|orderId>', 'sas status --order-id ID | --process-id ID'],
    summary: 'Show a process: which id matched, its state, steps and history. A text that is one process\'s id and another\'s orderId is refused as ambiguous.',
    options: EITHER_ID,
    env: STORE,
    example: 'sas status o-1001',
  },
  processes: {
    usage: ['sas processes [--state S[,S]] [--workflow NAME] [--failed-step STEP] [--since T] [--until T] [--time-field updatedAt|createdAt] [--text WORDS] [--limit N]'],
    summary:
      'Count the processes a filter selects by state, workflow and current step, and list the latest. The filter is the one of sas bulk and the dashboard\'s bulk API: a listing shows what a bulk operation with the same options would act on.',
    options: [...FILTER, ['--limit N', 'how many processes to list, newest first (default 20; 0: counts only)']],
    env: STORE,
    example: 'sas processes --state Error --failed-step charge-payment',
  },
  resubmit: {
    usage: ['sas resubmit <processId|orderId> [--reason TEXT] [--timeout-ms N]'],
    summary: 'Restart a process in Error from its failed step; prints which process matched and the scheduler\'s answer.',
    options: [...EITHER_ID, ['--reason TEXT', 'why, recorded in the history'], ['--timeout-ms N', 'how long to wait for a scheduler\'s answer on the direct path (default 30000)']],
    env: `${API}; direct: ${STORE}; ${BUS}`,
    example: "sas resubmit o-1001 --reason 'card processor is back'",
  },
  cancel: {
    usage: ['sas cancel <processId|orderId> [--reason TEXT] [--timeout-ms N]'],
    summary: 'Stop an unfinished process and undo what it did; prints which process matched and the scheduler\'s answer.',
    options: [...EITHER_ID, ['--reason TEXT', 'why, recorded in the history'], ['--timeout-ms N', 'how long to wait for a scheduler\'s answer on the direct path (default 30000)']],
    env: `${API}; direct: ${STORE}; ${BUS}`,
    example: "sas cancel o-1001 --reason 'customer withdrew'",
  },
  signal: {
    usage: ["sas signal <processId|orderId> --name NAME [--data JSON] [--signal-id ID] [--timeout-ms N]"],
    summary: 'Send a named signal to a process (a signal step waits for it; its data becomes the step\'s result); prints which process matched and what the scheduler did with it.',
    options: [
      ...EITHER_ID,
      ['--name NAME', 'the signal\'s name, as the workflow\'s signal step names it'],
      ['--data JSON', 'a JSON object, the signal step\'s result (default none: null)'],
      ['--signal-id ID', 'identifies the signal; the same id counts once (default: derived from the process, name and data, so running the same command again counts once)'],
      ['--timeout-ms N', 'how long to wait for a scheduler\'s answer on the direct path (default 30000)'],
    ],
    env: `${API}; direct: ${STORE}; ${BUS}`,
    example: `sas signal o-1001 --name approval --data '{"approved":true}'`,
  },
  bulk: {
    usage: [
      'sas bulk resubmit|cancel --state S[,S] --reason TEXT [--workflow NAME] [--failed-step STEP] [--since T] [--until T] [--time-field updatedAt|createdAt] [--text WORDS] [--id ID] [--dry-run] [--no-wait]',
      'sas bulk show <id>',
      'sas bulk list',
    ],
    summary: 'Resubmit or cancel every process a filter selects, as one durable operation a scheduler runs; follow its progress; show or list operations.',
    options: [
      ...FILTER,
      ['--reason TEXT', 'why, recorded in every process history (required)'],
      ['--id ID', 'makes the request idempotent: sending it again returns the same operation'],
      ['--dry-run', 'count what the filter selects now, start nothing'],
      ['--no-wait', 'return once the operation is created'],
    ],
    env: `${API}; direct, and show and list: ${STORE}`,
    example: "sas bulk resubmit --state Error --failed-step charge-payment --reason 'PSP fixed' --dry-run",
  },
  pause: {
    usage: ['sas pause <agent> --reason TEXT'],
    summary: 'Hold new dispatches to a remote service (an outage, maintenance); schedulers see it within PAUSE_CACHE_MS.',
    options: [['--reason TEXT', 'why (required), recorded with your name']],
    env: `${API}; direct: ${STORE}; WORKFLOWS_FILE (to know the agents of your workflows)`,
    example: "sas pause payment --reason 'PSP maintenance until 14:00'",
  },
  resume: {
    usage: ['sas resume <agent> [--reason TEXT]'],
    summary: 'Release a paused agent\'s held work, at the schedulers\' bounded rate.',
    options: [['--reason TEXT', 'why, recorded with your name']],
    env: `${API}; direct: ${STORE}; WORKFLOWS_FILE`,
    example: 'sas resume payment',
  },
  agents: {
    usage: ['sas agents'],
    summary: 'Each agent of the workflows (and each agent registered as live): paused or running, how many processes are held for it, who paused it and why, then its live instances with their version and operations.',
    options: [],
    env: `${STORE}; WORKFLOWS_FILE`,
    example: 'sas agents',
  },
  jobs: {
    usage: ['sas jobs create --file spec.json', 'sas jobs list [--requestor R] [--all]', 'sas jobs show <key>', 'sas jobs cancel <key> [--by NAME]'],
    summary: 'Manage job specifications (cron or one-off) that running schedulers fire.',
    options: [
      ['--file spec.json', 'the job specification to create'],
      ['--requestor R', 'list only this requestor\'s jobs'],
      ['--all', 'list finished jobs too'],
      BY,
    ],
    env: `${STORE}; JOBS_RETENTION_MS`,
    example: 'sas jobs list --all',
  },
  up: {
    usage: [
      'sas up [--workflows FILE] [--agent NAME=MAPPING.json ...] [--agent-env NAME:KEY=VALUE ...]',
      'sas up ... [--schedulers N] [--supervisors N] [--data-dir DIR | --in-memory] [--log-dir DIR] [--dashboard-port N] [--separate-processes]',
    ],
    summary:
      'Run sas locally on your workflows: submission, schedulers, supervisors, the dashboard and one HTTP agent per --agent, on a private Redis (append-only) and the embedded MongoDB (on disk) unless REDIS_URL / MONGO_URL name your own. ' +
      'Its state lives in a data folder: a restart on the same folder resumes every order and job. A process that dies is restarted (with back-off; 5 deaths in 60 s stop sas up), the others keep running. ' +
      'Ctrl-C stops the roles and agents first, then the dashboard, then MongoDB and Redis; a second Ctrl-C kills everything at once.',
    options: [
      ['--workflows FILE', 'your workflows (JSON), checked before anything starts; without it, the built-in workflows'],
      ['--agent NAME=MAPPING.json', 'one HTTP agent serving NAME, calling out as the mapping says (checked before anything starts); repeat for more'],
      ['--agent-env NAME:KEY=VALUE', "an environment variable for that agent alone, e.g. payout:CONCURRENCY=4; repeat for more"],
      ['--schedulers N', 'schedulers, 1 to 16 (default 1)'],
      ['--supervisors N', 'supervisors, 1 to 16 (default 1)'],
      ['--data-dir DIR', "where Redis's append-only file, the embedded MongoDB's file and the logs are kept (default ./.sas); one sas up per folder"],
      ['--in-memory', 'keep nothing: Redis without persistence, the embedded MongoDB in memory (a throw-away run, as the demo)'],
      ['--log-dir DIR', "one log file per service (default: the data folder's logs/, or a temporary folder with --in-memory)"],
      ['--dashboard-port N', 'the dashboard\'s port (default: the last run\'s on this data folder, else any free one)'],
      ['--separate-processes', 'every role its own process, as in production (default: submission, a scheduler and a supervisor share core-1)'],
    ],
    env: 'REDIS_URL, MONGO_URL (optional: your own servers, left running when sas up stops), MONGO_DB, QUEUE_PREFIX (default sas), LOG_LEVEL',
    example: 'sas up --workflows ./workflows.json --agent payout=./payout-mapping.json --agent-env payout:CONCURRENCY=4',
  },
  workflows: {
    usage: ['sas workflows check FILE', 'sas workflows check [FILE] --live'],
    summary: 'Validate a WORKFLOWS_FILE as the services load it, without a running system: each bad field with its path (unknown keys included, with the key meant, and input schemas that do not compile), or one line per workflow. With --live, also each step operation and compensation that no live agent serves (exit 1 with the list).',
    options: [['--live', 'ask MongoDB which agents are registered as live; without FILE, check the services\' WORKFLOWS_FILE (or the built-in workflows)']],
    env: 'none; with --live MONGO_URL, MONGO_DB and WORKFLOWS_FILE',
    example: 'sas workflows check ./workflows.json --live',
  },
};

/** `sas <command> --help`: usage, what it does, options, environment and an example. */
export function renderCommandHelp(help: CommandHelp): string {
  const width = Math.max(0, ...help.options.map(([flag]) => flag.length));
  const lines = [
    ...help.usage.map((u, i) => `${i === 0 ? 'Usage: ' : '       '}${u}`),
    '',
    help.summary,
  ];
  if (help.options.length > 0) lines.push('', 'Options:', ...help.options.map(([flag, meaning]) => `  ${flag.padEnd(width)}  ${meaning}`));
  lines.push('', `Environment: ${help.env}`, '', 'Example:', `  ${help.example}`);
  return lines.join('\n');
}
