import { readFileSync } from 'node:fs';
import { systemClock } from '@sas/runtime';
import { AgentRegistrationRepository, type StoreConnection } from '@sas/store';
import { describeUnserved, loadWorkflows, unservedOperations, workflowsToCheck, type WorkflowDefinition } from '@sas/workflow';

/**
 * `sas workflows check --live` run by `sas up` itself, on its console: once the services are up,
 * then whenever the answer changes, it says which step operations no live agent serves (an agent
 * not started yet, or a name that does not match), and when every one is served. So a step whose
 * agent does not exist shows at once, not as a process that times out after 3 × complete-by.
 */
export class UnservedWatch {
  private last: string | undefined;
  private readonly workflows: WorkflowDefinition[];

  constructor(
    private readonly store: StoreConnection,
    workflowsFile: string | undefined,
    private readonly out: (line: string) => void,
  ) {
    this.workflows = workflowsToCheck(loadWorkflows(workflowsFile === undefined ? undefined : readFileSync(workflowsFile, 'utf8')));
  }

  /** Reads the live agents and prints what changed since the last check. Never throws: a store that does not answer skips a beat. */
  async check(): Promise<void> {
    let gaps: string[];
    try {
      const live = await new AgentRegistrationRepository(this.store.db).listLive(new Date(systemClock.now()));
      gaps = unservedOperations(this.workflows, live).map(describeUnserved);
    } catch {
      return;
    }
    const key = gaps.join('\n');
    if (key === this.last) return;
    const first = this.last === undefined;
    this.last = key;
    if (gaps.length === 0) {
      if (!first) this.out('\n  live check: every step operation and compensation is now served by a live agent');
      return;
    }
    this.out(`\n  live check: ${gaps.length} step operation(s) no live agent serves; start that agent (your @sas/agent code, or --agent NAME=MAPPING.json), or fix the name:`);
    for (const gap of gaps) this.out(`    unserved ${gap}`);
  }
}
