#!/usr/bin/env node
/* eslint-disable no-console -- this is the command line's entry point: its output is the interface */
import { hostname, userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { BULK_USAGE, runBulkCommand } from './bulk-command';
import { AGENT_PAUSE_USAGE, runAgentPauseCommand } from './agent-pause-command';
import { cliEnv } from './cli-env';
import { endQuietlyOnClosedPipe } from './closed-pipe';
import { COMMAND_HELP, renderCommandHelp } from './command-help';
import { runDemo } from './demo/run-demo';
import { JOBS_USAGE, runJobsCommand } from './jobs-command';
import { runOperatorCommand } from './operator-command';
import { chooseOperatorPath, cliPrincipal, type OperatorPath } from './operator-path';
import { runProcessesCommand } from './processes-command';
import { parseSignalData, runSignalCommand } from './signal-command';
import { showProcess } from './show-process';
import { submitOrder } from './submit-order';
import { WORKFLOWS_USAGE, runWorkflowsCommand } from './workflows-command';
import { isRole } from './up/role-scripts';
import { EMBEDDED_MONGO_USAGE, runEmbeddedMongo } from './up/run-embedded-mongo';
import { ROLE_USAGE, runRole } from './up/run-role';
import { runUp } from './up/run-up';
import { UP_USAGE, parseUpOptions } from './up/up-options';
import { terminalText } from './terminal-text';

const USAGE = `Usage: sas <command> [options]

${UP_USAGE}
${ROLE_USAGE}
${EMBEDDED_MONGO_USAGE}
  demo [--orders N] [--faults none|mild|chaos] [--keep] [--timeout-ms N]
        start the whole system locally, submit demo orders, show progress and a summary
  submit --order-id ID [--workflow NAME] [--payload JSON] [--reply-to QUEUE]
  status <processId|orderId>         show a process and its history (says which id matched)
  processes [--state S[,S]] [--workflow W] [--failed-step STEP] [--limit N] ...
                                     count processes by state, workflow and step; list the latest
  resubmit <processId|orderId> [--reason TEXT]  restart an Error process from its failed step
  cancel <processId|orderId> [--reason TEXT]    stop an unfinished process and undo what it did
  signal <processId|orderId> --name NAME [--data JSON] [--signal-id ID]
                                     send a named signal to a process (a signal step waits for it)
${BULK_USAGE}
${AGENT_PAUSE_USAGE}
${JOBS_USAGE}
${WORKFLOWS_USAGE}

Commands other than demo and workflows check (without --live) use REDIS_URL, MONGO_URL, MONGO_DB and QUEUE_PREFIX (as the services do).
With SAS_DASHBOARD_URL and SAS_DASHBOARD_TOKEN set, resubmit, cancel, signal, bulk resubmit|cancel, pause and resume go through
the dashboard's API instead, audited under the token's principal; without them they write directly, audited as cli:<user>@<host>.
sas <command> --help describes a command, its options and an example.`;

async function main(argv: string[]): Promise<number> {
  // Its options are the embedded server's own, not the CLI's: handed over before they are parsed.
  if (argv[0] === 'embedded-mongo') {
    await runEmbeddedMongo(argv.slice(1));
    return new Promise<number>(() => undefined); // the server exits the process when it stops
  }
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      orders: { type: 'string', default: '20' },
      faults: { type: 'string', default: 'mild' },
      keep: { type: 'boolean', default: false },
      // No default here: demo waits 120 s for its orders, resubmit and cancel 30 s for an answer.
      'timeout-ms': { type: 'string' },
      'process-id': { type: 'string' },
      limit: { type: 'string' },
      'order-id': { type: 'string' },
      // No default here: bulk filters only by a workflow given; submit defaults it below.
      workflow: { type: 'string' },
      payload: { type: 'string', default: '{}' },
      'reply-to': { type: 'string' },
      // No default: operator writes refuse a typed --by (see chooseOperatorPath); jobs defaults it below.
      by: { type: 'string' },
      reason: { type: 'string' },
      name: { type: 'string' },
      data: { type: 'string' },
      'signal-id': { type: 'string' },
      file: { type: 'string' },
      requestor: { type: 'string' },
      all: { type: 'boolean', default: false },
      state: { type: 'string' },
      'failed-step': { type: 'string' },
      'time-field': { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      text: { type: 'string' },
      id: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      'no-wait': { type: 'boolean', default: false },
      live: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
      // sas up
      workflows: { type: 'string' },
      agent: { type: 'string', multiple: true },
      schedulers: { type: 'string' },
      supervisors: { type: 'string' },
      'log-dir': { type: 'string' },
      'dashboard-port': { type: 'string' },
      'separate-processes': { type: 'boolean', default: false },
      'data-dir': { type: 'string' },
      'in-memory': { type: 'boolean', default: false },
      'agent-env': { type: 'string', multiple: true },
    },
  });
  const [command, target] = positionals;
  if (values.help || !command) {
    const help = command === undefined ? undefined : COMMAND_HELP[command];
    console.log(help ? renderCommandHelp(help) : USAGE);
    return command || values.help ? 0 : 2;
  }
  if (isRole(command)) {
    await runRole(command);
    return new Promise<number>(() => undefined); // the service exits the process when it stops
  }
  const env = cliEnv(process.env);
  switch (command) {
    case 'up': {
      const onSignal = (listener: (signal: string) => void): void => {
        process.on('SIGINT', () => listener('SIGINT'));
        process.on('SIGTERM', () => listener('SIGTERM'));
        // A closed terminal: its services are in process groups of their own, so they would run on orphaned.
        process.on('SIGHUP', () => listener('SIGHUP'));
      };
      const live = process.stdout.isTTY ? (line: string) => process.stdout.write(`\r${line}\x1b[K`) : undefined;
      return runUp(parseUpOptions(values), { out: (l) => console.log(l), err: (l) => console.error(l), live }, onSignal);
    }
    case 'demo': {
      const orders = Number(values.orders);
      const faults = values.faults;
      if (!Number.isInteger(orders) || orders < 1 || orders > 10_000) throw new Error(`--orders must be 1..10000 (got '${values.orders}')`);
      if (faults !== 'none' && faults !== 'mild' && faults !== 'chaos') throw new Error(`--faults must be none, mild or chaos (got '${faults}')`);
      return runDemo({ orders, faults, keep: values.keep, timeoutMs: Number(values['timeout-ms'] ?? 120_000), out: (l) => console.log(l) });
    }
    case 'submit': {
      if (!values['order-id']) throw new Error('submit needs --order-id');
      const payload = parsePayload(values.payload);
      const submitted = await submitOrder(env, { orderId: values['order-id'], workflow: values.workflow ?? 'order-fulfilment', payload, replyTo: values['reply-to'] });
      console.log(`submitted ${submitted.orderId} (job ${submitted.jobId})`);
      return 0;
    }
    case 'status': {
      const [id, only] = processTarget(command, target, values['process-id'], values['order-id']);
      return (await showProcess(env, id, (l) => console.log(l), only)) ? 0 : 1;
    }
    case 'processes': {
      const args = { state: values.state, workflow: values.workflow, failedStep: values['failed-step'], timeField: values['time-field'], since: values.since, until: values.until, text: values.text, limit: values.limit };
      return runProcessesCommand(env, args, (l) => console.log(l));
    }
    case 'resubmit':
    case 'cancel': {
      const [id, only] = processTarget(command, target, values['process-id'], values['order-id']);
      const timeoutMs = values['timeout-ms'] === undefined ? undefined : Number(values['timeout-ms']);
      if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) throw new Error(`--timeout-ms must be a positive number of milliseconds (got '${values['timeout-ms']}')`);
      return runOperatorCommand(env, command, id, { path: operatorPath(values.by), reason: values.reason, only, timeoutMs }, (l) => console.log(l));
    }
    case 'signal': {
      const [id, only] = processTarget(command, target, values['process-id'], values['order-id']);
      if (!values.name) throw new Error("signal needs --name NAME: the signal's name, as the workflow's signal step names it");
      const timeoutMs = values['timeout-ms'] === undefined ? undefined : Number(values['timeout-ms']);
      if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) throw new Error(`--timeout-ms must be a positive number of milliseconds (got '${values['timeout-ms']}')`);
      const data = values.data === undefined ? null : parseSignalData(values.data);
      const args = { path: operatorPath(values.by), name: values.name, data, signalId: values['signal-id'], only, timeoutMs };
      return runSignalCommand(env, id, args, (l) => console.log(l));
    }
    case 'bulk': {
      const id = target === 'show' ? positionals[2] : values.id;
      const writes = target === 'resubmit' || target === 'cancel';
      const path: OperatorPath = writes ? operatorPath(values.by) : { kind: 'direct', principal: '' };
      const args = { action: target, id, state: values.state, workflow: values.workflow, failedStep: values['failed-step'], timeField: values['time-field'], since: values.since, until: values.until, text: values.text, reason: values.reason, path, dryRun: values['dry-run'], noWait: values['no-wait'] };
      return runBulkCommand(env, args, (l) => console.log(l));
    }
    case 'jobs': {
      const principal = cliPrincipal({ user: osUser(), host: hostname() });
      const args = { action: target, key: positionals[2], file: values.file, requestor: values.requestor, all: values.all, by: values.by ?? principal, principal };
      return runJobsCommand(env, args, (l) => console.log(l));
    }
    case 'pause':
    case 'resume':
    case 'agents': {
      const path: OperatorPath = command === 'agents' ? { kind: 'direct', principal: '' } : operatorPath(values.by);
      const args = { action: command, agent: target, reason: values.reason, path } as const;
      return runAgentPauseCommand({ ...env, workflowsFile: process.env['WORKFLOWS_FILE'] }, args, (l) => console.log(l));
    }
    case 'workflows':
      return runWorkflowsCommand(target, positionals[2], (l) => console.log(l), values.live ? { ...env, workflowsFile: process.env['WORKFLOWS_FILE'] } : undefined);
    default:
      console.error(`Unknown command '${command}'.\n\n${USAGE}`);
      return 2;
  }
}

/** The process a command names: the argument (either kind of id), or --process-id, or --order-id; exactly one. */
function processTarget(command: string, positional: string | undefined, processId: string | undefined, orderId: string | undefined): [string, 'processId' | 'orderId' | undefined] {
  const given = [positional, processId, orderId].filter((v) => v !== undefined);
  if (given.length !== 1) throw new Error(`${command} needs one process: sas ${command} <processId|orderId>, or --process-id ID, or --order-id ID`);
  if (processId !== undefined) return [processId, 'processId'];
  if (orderId !== undefined) return [orderId, 'orderId'];
  return [positional as string, undefined];
}

/** Where an operator write goes: the dashboard's API or straight to Redis/MongoDB, by the environment. */
function operatorPath(by: string | undefined): OperatorPath {
  return chooseOperatorPath(process.env, by, { user: osUser(), host: hostname() });
}

/** The OS user name; a container's uid without a passwd entry has none, so its uid stands in. */
function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid-${process.getuid?.() ?? 'unknown'}`;
  }
}

/** The --payload option as JSON; whether it is a valid order payload is the client's check. */
function parsePayload(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`--payload is not JSON (${e instanceof Error ? e.message : String(e)}); pass an object, e.g. --payload '{"sku":"kettle"}'`);
  }
}

// A closed pipe ends the CLI quietly: at once, or through the SIGINT handler of a command that
// runs services (demo --keep, up), so that it stops them as on Ctrl-C.
endQuietlyOnClosedPipe([process.stdout, process.stderr], () => {
  if (process.listenerCount('SIGINT') > 0) process.emit('SIGINT', 'SIGINT');
  else process.exit(0);
});

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    // An error may quote stored text or a dashboard's answer: each of its lines is shown, not obeyed.
    const message = e instanceof Error ? e.message : String(e);
    console.error(`sas: ${message.split('\n').map(terminalText).join('\n')}`);
    process.exit(1);
  },
);
