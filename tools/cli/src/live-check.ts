import { WorkflowDefinition, describeUnserved, loadWorkflows, unservedOperations, workflowsToCheck } from '@sas/workflow';
import { readOptionalFile, systemClock } from '@sas/runtime';
import { AgentRegistrationRepository, connectStore } from '@sas/store';
import type { CliEnv } from './cli-env';

/** Where `sas workflows check --live` finds the workflows and the system. */
export interface LiveCheckEnv extends CliEnv {
  /** WORKFLOWS_FILE: the services' workflows, checked when no FILE is given. */
  workflowsFile: string | undefined;
}

/**
 * `sas workflows check [FILE] --live`: each step operation and compensation of the workflows that
 * no agent registered as live serves (no live instance, or a name none of its instances has, such
 * as `refnd` for `refund`). The workflows are FILE's (already checked offline by the caller), else
 * those the services run: WORKFLOWS_FILE's own, or the built-in ones. Returns the exit code: 0
 * when every name is served, 1 with the list otherwise.
 */
export async function runLiveCheck(env: LiveCheckEnv, fileText: string | undefined, out: (line: string) => void): Promise<number> {
  const workflows = fileText === undefined
    ? workflowsToCheck(loadWorkflows(readOptionalFile('WORKFLOWS_FILE', env.workflowsFile)))
    : (JSON.parse(fileText) as unknown[]).map((w) => WorkflowDefinition.parse(w));
  const connection = await connectStore(env.mongoUrl, env.mongoDb);
  try {
    const live = await new AgentRegistrationRepository(connection.db).listLive(new Date(systemClock.now()));
    const gaps = unservedOperations(workflows, live).map(describeUnserved);
    const agents = [...new Set(live.map((r) => r.agent))].sort();
    if (gaps.length === 0) {
      out(`live: every step operation and compensation of ${workflows.length} workflow(s) is served (live agents: ${agents.join(', ') || 'none'})`);
      return 0;
    }
    for (const gap of gaps) out(`unserved ${gap}`);
    out(`live: ${gaps.length} operation(s) no live agent serves (live agents: ${agents.join(', ') || 'none'}); start the agent, or fix the name in the workflow or the agent`);
    return 1;
  } finally {
    await connection.close();
  }
}
