import { AgentName, type AgentPauseDocument, type AgentRegistration } from '@sas/contracts';
import { readOptionalFile, systemClock } from '@sas/runtime';
import { AgentRegistrationRepository, CollectionNames, MongoAgentPauseStore, connectStore, setAgentPause } from '@sas/store';
import { loadWorkflows, workflowAgents } from '@sas/workflow';
import type { CliEnv } from './cli-env';
import { recordCliAudit } from './cli-audit';
import { DashboardApi, explainApiRefusal } from './dashboard-api';
import type { OperatorPath } from './operator-path';
import { describeLiveInstances } from './live-agents';
import { terminalSafe } from './terminal-text';

/** Usage of the pause commands, part of the CLI's help. */
export const AGENT_PAUSE_USAGE = `  pause <agent> --reason TEXT               hold new dispatches to a remote service (outage, maintenance)
  resume <agent> [--reason TEXT]            release its held work, at the schedulers' bounded rate
  agents                                    each agent: paused or running, held processes, who and why; live instances and operations`;

/** Arguments of `sas pause|resume|agents`, as parsed from the command line. */
export interface AgentPauseArgs {
  action: 'pause' | 'resume' | 'agents';
  agent: string | undefined;
  reason: string | undefined;
  /** Where a pause or resume goes, and who it names (see {@link OperatorPath}); `agents` reads MongoDB. */
  path: OperatorPath;
}

/**
 * `sas pause`, `sas resume` and `sas agents`: change an agent's pause through the dashboard's API
 * (API path, audited there), or straight in MongoDB (`agent_pauses`, MONGO_URL and MONGO_DB) as the
 * dashboard does, audited by the CLI (direct path); schedulers see it within their PAUSE_CACHE_MS.
 * On the direct path an agent name is checked against the workflows' agents (built-in ones plus
 * WORKFLOWS_FILE) and the agents paused before, so a typo does not pause nothing (the dashboard
 * checks it against its own list on the API path).
 */
export async function runAgentPauseCommand(env: CliEnv & { workflowsFile?: string | undefined }, args: AgentPauseArgs, print: (line: string) => void): Promise<number> {
  // Stored text (ids, reasons, errors, history) is someone else's input: shown, never obeyed.
  const out = terminalSafe(print);
  if (args.action !== 'agents' && args.path.kind === 'api') {
    const api = new DashboardApi(args.path.baseUrl, args.path.token);
    const answer = await api.send('POST', `/api/agents/${encodeURIComponent(args.agent ?? '')}/${args.action}`, args.reason ? { reason: args.reason } : {});
    if (answer.status !== 200) {
      out(`refused: ${explainApiRefusal(answer, api.baseUrl)}`);
      return 1;
    }
    out(`${answer.body['changed'] === true ? 'done' : 'unchanged'}: ${String(answer.body['message'])}`);
    return 0;
  }
  const connection = await connectStore(env.mongoUrl, env.mongoDb);
  try {
    const pauses = new MongoAgentPauseStore(connection.db);
    const docs = await pauses.list();
    if (args.action === 'agents') {
      const held = connection.db.collection(CollectionNames.processes);
      const now = systemClock.now();
      const live = await new AgentRegistrationRepository(connection.db).listLive(new Date(now));
      for (const agent of knownAgents(env.workflowsFile, docs, live)) {
        const doc = docs.find((d) => d._id === agent);
        const count = await held.countDocuments({ heldFor: agent, state: 'Pending' });
        out(describe(agent, doc, count));
        for (const line of describeLiveInstances(agent, live, now)) out(line);
      }
      return 0;
    }
    const agent = AgentName.safeParse(args.agent);
    if (!args.agent || !agent.success) throw new Error(`${args.action} needs an agent name (letters, digits, _ or -), e.g. sas ${args.action} payment`);
    const known = knownAgents(env.workflowsFile, docs);
    if (!known.includes(agent.data)) {
      throw new Error(`no workflow uses an agent '${agent.data}' (known: ${known.join(', ')}); check the name, or set WORKFLOWS_FILE to the services' workflows file`);
    }
    if (args.action === 'pause' && !args.reason) throw new Error(`say why you pause ${agent.data}: --reason 'PSP maintenance until 14:00' (it is recorded with your name)`);
    const principal = args.path.kind === 'direct' ? args.path.principal : '';
    const audit = async (outcome: 'ok' | 'failed', detail: string | undefined): Promise<void> => {
      const warning = await recordCliAudit(env, { action: `agent.${args.action}`, principal, command: args.action, target: `agent ${agent.data}`, outcome, exitCode: outcome === 'ok' ? 0 : 1, detail });
      if (warning) out(warning);
    };
    let change;
    try {
      change = await setAgentPause(pauses, { agent: agent.data, action: args.action, by: principal, reason: args.reason, now: systemClock.now() });
    } catch (e) {
      await audit('failed', e instanceof Error ? e.message : String(e));
      throw e;
    }
    out(`${change.changed ? 'done' : 'unchanged'}: ${change.message}`);
    await audit('ok', args.reason);
    return 0;
  } finally {
    await connection.close();
  }
}

/** The workflows' agents, every agent paused before, and every agent registered as live, by name. */
function knownAgents(workflowsFile: string | undefined, docs: readonly AgentPauseDocument[], live: readonly AgentRegistration[] = []): string[] {
  const registry = loadWorkflows(readOptionalFile('WORKFLOWS_FILE', workflowsFile));
  const agents = registry.list().flatMap((id) => {
    const at = id.lastIndexOf('@');
    const workflow = registry.find(id.slice(0, at), Number(id.slice(at + 1)));
    return workflow ? workflowAgents(workflow) : [];
  });
  return [...new Set([...agents, ...docs.map((d) => d._id), ...live.map((r) => r.agent)])].sort();
}

function describe(agent: string, doc: AgentPauseDocument | undefined, held: number): string {
  if (!doc) return `${agent}: running, never paused; ${held} held`;
  const because = doc.reason ? `: ${doc.reason}` : '';
  return `${agent}: ${doc.paused ? 'PAUSED' : 'running'} since ${doc.since.toISOString()} by ${doc.by}${because}; ${held} held`;
}
