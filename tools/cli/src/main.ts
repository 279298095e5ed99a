#!/usr/bin/env node
/* eslint-disable no-console -- this is the command line's entry point: its output is the interface */
import { parseArgs } from 'node:util';
import { BULK_USAGE, runBulkCommand } from './bulk-command';
import { AGENT_PAUSE_USAGE, runAgentPauseCommand } from './agent-pause-command';
import { cliEnv } from './cli-env';
import { runDemo } from './demo/run-demo';
import { JOBS_USAGE, runJobsCommand } from './jobs-command';
import { sendOperatorCommand } from './operator-command';
import { showProcess } from './show-process';
import { submitOrder } from './submit-order';
import { WORKFLOWS_USAGE, runWorkflowsCommand } from './workflows-command';
import { isRole } from './up/role-scripts';
import { ROLE_USAGE, runRole } from './up/run-role';
import { runUp } from './up/run-up';
import { UP_USAGE, parseUpOptions } from './up/up-options';

const USAGE = `Usage: sas <command> [options]

${UP_USAGE}
${ROLE_USAGE}
  demo [--orders N] [--faults none|mild|chaos] [--keep] [--timeout-ms N]
        start the whole system locally, submit demo orders, show progress and a summary
  submit --order-id ID [--workflow NAME] [--payload JSON] [--reply-to QUEUE]
  status <processId|orderId>      show a process and its history
  resubmit <processId> [--by NAME] [--reason TEXT]  restart an Error process from its failed step
  cancel <processId> [--by NAME] [--reason TEXT]    stop an unfinished process and undo what it did
${BULK_USAGE}
${AGENT_PAUSE_USAGE}
${JOBS_USAGE}
${WORKFLOWS_USAGE}

Commands other than demo and workflows use REDIS_URL, MONGO_URL, MONGO_DB and QUEUE_PREFIX (as the services do).`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      orders: { type: 'string', default: '20' },
      faults: { type: 'string', default: 'mild' },
      keep: { type: 'boolean', default: false },
      'timeout-ms': { type: 'string', default: '120000' },
      'order-id': { type: 'string' },
      // No default here: bulk filters only by a workflow given; submit defaults it below.
      workflow: { type: 'string' },
      payload: { type: 'string', default: '{}' },
      'reply-to': { type: 'string' },
      by: { type: 'string', default: process.env['USER'] ?? 'operator' },
      reason: { type: 'string' },
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
      help: { type: 'boolean', short: 'h', default: false },
      // sas up
      workflows: { type: 'string' },
      agent: { type: 'string', multiple: true },
      schedulers: { type: 'string' },
      supervisors: { type: 'string' },
      'log-dir': { type: 'string' },
      'dashboard-port': { type: 'string' },
    },
  });
  const [command, target] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return command || values.help ? 0 : 2;
  }
  if (isRole(command)) {
    await runRole(command);
    return new Promise<number>(() => undefined); // the service exits the process when it stops
  }
  const env = cliEnv(process.env);
  switch (command) {
    case 'up': {
      const signal = new Promise<string>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      const live = process.stdout.isTTY ? (line: string) => process.stdout.write(`\r${line}\x1b[K`) : undefined;
      return runUp(parseUpOptions(values), { out: (l) => console.log(l), err: (l) => console.error(l), live }, signal);
    }
    case 'demo': {
      const orders = Number(values.orders);
      const faults = values.faults;
      if (!Number.isInteger(orders) || orders < 1 || orders > 10_000) throw new Error(`--orders must be 1..10000 (got '${values.orders}')`);
      if (faults !== 'none' && faults !== 'mild' && faults !== 'chaos') throw new Error(`--faults must be none, mild or chaos (got '${faults}')`);
      return runDemo({ orders, faults, keep: values.keep, timeoutMs: Number(values['timeout-ms']), out: (l) => console.log(l) });
    }
    case 'submit': {
      if (!values['order-id']) throw new Error('submit needs --order-id');
      const payload = parsePayload(values.payload);
      const submitted = await submitOrder(env, { orderId: values['order-id'], workflow: values.workflow ?? 'order-fulfilment', payload, replyTo: values['reply-to'] });
      console.log(`submitted ${submitted.orderId} (job ${submitted.jobId})`);
      return 0;
    }
    case 'status':
      if (!target) throw new Error('status needs a process id or order id');
      return (await showProcess(env, target, (l) => console.log(l))) ? 0 : 1;
    case 'resubmit':
    case 'cancel': {
      if (!target) throw new Error(`${command} needs a process id`);
      const result = await sendOperatorCommand(env, command, target, values.by, values.reason);
      console.log(`${result.ok ? 'done' : 'refused'}: ${result.message}`);
      return result.ok ? 0 : 1;
    }
    case 'bulk': {
      const id = target === 'show' ? positionals[2] : values.id;
      const args = { action: target, id, state: values.state, workflow: values.workflow, failedStep: values['failed-step'], timeField: values['time-field'], since: values.since, until: values.until, text: values.text, reason: values.reason, by: values.by, dryRun: values['dry-run'], noWait: values['no-wait'] };
      return runBulkCommand(env, args, (l) => console.log(l));
    }
    case 'jobs': {
      const args = { action: target, key: positionals[2], file: values.file, requestor: values.requestor, all: values.all, by: values.by };
      return runJobsCommand(env, args, (l) => console.log(l));
    }
    case 'pause':
    case 'resume':
    case 'agents': {
      const args = { action: command, agent: target, reason: values.reason, by: values.by } as const;
      return runAgentPauseCommand({ ...env, workflowsFile: process.env['WORKFLOWS_FILE'] }, args, (l) => console.log(l));
    }
    case 'workflows':
      return runWorkflowsCommand(target, positionals[2], (l) => console.log(l));
    default:
      console.error(`Unknown command '${command}'.\n\n${USAGE}`);
      return 2;
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

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`sas: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
