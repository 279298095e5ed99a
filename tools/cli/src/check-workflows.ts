import { WorkflowDefinition, WorkflowRegistry, builtInWorkflows, maxParkedMs, workflowIssues } from '@sas/workflow';

/** What `sas workflows check` found: the lines to print, and whether the file is fit to deploy. */
export interface WorkflowsCheck {
  ok: boolean;
  lines: string[];
}

/**
 * Checks the text of a workflows file (`WORKFLOWS_FILE`: a JSON array of definitions) the way the
 * services load it, without starting one: every bad field of every definition with its path
 * (`workflows[1].steps[2].completeByMs: Expected number, received string`), then every definition
 * the services would refuse to register (a name and version used twice, or taken by a built-in).
 * When all is well, one summary line per workflow. Pure: the caller reads the file and prints.
 */
export function checkWorkflows(text: string, source: string): WorkflowsCheck {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, lines: [`${source} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`] };
  }
  if (!Array.isArray(raw)) return { ok: false, lines: [`workflows: Expected an array of workflow definitions, received ${describe(raw)}`] };
  const problems = raw.flatMap((w: unknown, i) => workflowIssues(w, `workflows[${i}]`));
  if (problems.length > 0) return { ok: false, lines: problems };
  const registry = new WorkflowRegistry(builtInWorkflows);
  const summaries: string[] = [];
  raw.forEach((w: unknown, i) => {
    const definition = WorkflowDefinition.parse(w);
    try {
      registry.register(definition);
      summaries.push(summary(definition));
    } catch (e) {
      problems.push(`workflows[${i}]: ${e instanceof Error ? e.message : String(e)}`);
    }
  });
  return problems.length > 0 ? { ok: false, lines: problems } : { ok: true, lines: summaries };
}

/**
 * One line per valid workflow: `ok shop@1: 4 step(s) (a → pay [charge + hold] → b), threshold 3 then
 * compensate, …`. A parallel group is named with its members, each of which is a step of its own
 * (one run, recovered and undone on its own): the count is of those, not of the group.
 */
function summary(w: WorkflowDefinition): string {
  const policy = w.onThreshold.policy === 'wait' ? `wait ${w.onThreshold.waitMs} ms (at most ${w.onThreshold.maxWaits} times)` : w.onThreshold.policy;
  const steps = w.steps.map((s) => ('parallel' in s ? `${s.name} [${s.parallel.map((m) => m.name).join(' + ')}]` : s.name)).join(' → ');
  const count = w.steps.reduce((n, s) => n + ('parallel' in s ? s.parallel.length : 1), 0);
  return `ok ${w.name}@${w.version}: ${count} step(s) (${steps}), threshold ${w.failureThreshold} then ${policy}, refusals ${w.onPermanentFailure}, parked at most ${maxParkedMs(w)} ms${w.inputSchema ? ', payload checked by its inputSchema' : ''}`;
}

function describe(value: unknown): string {
  return value === null ? 'null' : typeof value === 'object' ? 'object' : typeof value;
}
