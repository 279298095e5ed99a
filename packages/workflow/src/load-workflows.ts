import { z } from 'zod';
import { builtInWorkflows } from './order-fulfilment';
import { WorkflowDefinition } from './workflow-definition';
import { describeWorkflowIssues } from './workflow-issues';
import { WorkflowRegistry } from './workflow-registry';

/**
 * Builds the registry a service runs with: the built-in workflows plus those in `json` (the
 * contents of `WORKFLOWS_FILE`, an array of definitions). Invalid definitions fail with every issue.
 */
export function loadWorkflows(json?: string): WorkflowRegistry {
  const registry = new WorkflowRegistry(builtInWorkflows);
  if (!json) return registry;
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (e) {
    throw new Error(`WORKFLOWS_FILE is not valid JSON: ${(e as Error).message}`);
  }
  const parsed = z.array(WorkflowDefinition).safeParse(raw);
  if (!parsed.success) {
    // The same lines as `sas workflows check`: `workflows[0].steps[1]: unknown key 'completeBy' …`.
    const issues = describeWorkflowIssues(parsed.error.issues, 'workflows').join('; ');
    throw new Error(`WORKFLOWS_FILE has invalid workflow definitions: ${issues}`);
  }
  for (const w of parsed.data) registry.register(w);
  return registry;
}
