import { builtInWorkflows } from './order-fulfilment';
import type { WorkflowDefinition } from './workflow-definition';
import type { WorkflowRegistry } from './workflow-registry';

/**
 * The workflows whose agents a live check expects to run: a deployment's own (WORKFLOWS_FILE) when
 * it has any, else the built-in ones. The built-ins are always registered, but where a deployment
 * runs its own workflows nobody need submit to them, so their agents need not run.
 */
export function workflowsToCheck(registry: WorkflowRegistry): WorkflowDefinition[] {
  const all = registry.definitions();
  const own = all.filter((w) => !builtInWorkflows.some((b) => b.name === w.name && b.version === w.version));
  return own.length > 0 ? own : all;
}
