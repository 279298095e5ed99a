import type { ZodIssue } from 'zod';
import { WorkflowDefinition } from './workflow-definition';

/**
 * A zod issue path as a reader writes it: `steps[2].completeByMs`, after `prefix` when given
 * (`workflows[1]` makes `workflows[1].steps[2].completeByMs`). An empty path is the prefix alone,
 * or `(workflow)` without one.
 */
export function issuePath(path: ReadonlyArray<string | number>, prefix = ''): string {
  let out = prefix;
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(part)) out += out === '' ? part : `.${part}`;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out === '' ? '(workflow)' : out;
}

/** One line per issue: `steps[2].completeByMs: Expected number, received string`. */
export function describeWorkflowIssues(issues: readonly ZodIssue[], prefix = ''): string[] {
  return issues.map((i) => `${issuePath(i.path, prefix)}: ${i.message}`);
}

/**
 * Everything wrong with one workflow definition, one line per bad field (see
 * {@link describeWorkflowIssues}); empty when `raw` is a valid {@link WorkflowDefinition}.
 */
export function workflowIssues(raw: unknown, prefix = ''): string[] {
  const parsed = WorkflowDefinition.safeParse(raw);
  return parsed.success ? [] : describeWorkflowIssues(parsed.error.issues, prefix);
}
