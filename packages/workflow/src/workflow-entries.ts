import type { StepRecord } from '@sas/contracts';
import type { GroupMember, StepDefinition, WorkflowDefinition, WorkflowEntry } from './workflow-definition';

/** The four kinds of entry a workflow's `steps` holds. */
export type EntryKind = 'task' | 'group' | 'wait' | 'signal';

/** Which kind an entry is, by the key that tells them apart. */
export function entryKind(entry: WorkflowEntry): EntryKind {
  if ('parallel' in entry) return 'group';
  if ('wait' in entry) return 'wait';
  if ('signal' in entry) return 'signal';
  return 'task';
}

/** Every task an agent runs for this workflow, in order, a parallel group's members in their place. */
export function taskSteps(workflow: Pick<WorkflowDefinition, 'steps'>): Array<StepDefinition | GroupMember> {
  return workflow.steps.flatMap((e): Array<StepDefinition | GroupMember> => {
    if ('parallel' in e) return e.parallel;
    return 'agent' in e ? [e] : [];
  });
}

/** The agents a workflow sends work to, each once. */
export function workflowAgents(workflow: Pick<WorkflowDefinition, 'steps'>): string[] {
  return [...new Set(taskSteps(workflow).map((s) => s.agent))];
}

/**
 * The entry a step record belongs to: its parallel group for a member, else the entry of its name.
 * @throws when the workflow has no such entry (a process run with another workflow than its own).
 */
export function entryOf(workflow: WorkflowDefinition, record: StepRecord): WorkflowEntry {
  const name = record.group ?? record.name;
  const entry = workflow.steps.find((e) => e.name === name);
  if (!entry) throw new Error(`Workflow ${workflow.name} v${workflow.version} has no step '${name}'`);
  return entry;
}

/** Indices of the records of the entry at `index`: a group's members, else `index` alone. */
export function entryRecords(steps: readonly StepRecord[], index: number): number[] {
  const group = steps[index]?.group;
  if (group === undefined) return [index];
  const out: number[] = [];
  steps.forEach((s, i) => {
    if (s.group === group) out.push(i);
  });
  return out;
}

/** Index of the first record of the entry at `index` (a group's first member). */
export function entryStart(steps: readonly StepRecord[], index: number): number {
  return entryRecords(steps, index)[0] ?? index;
}

/** Index of the first record after the entry at `index`: where the next entry starts. */
export function nextEntryIndex(steps: readonly StepRecord[], index: number): number {
  const records = entryRecords(steps, index);
  return (records[records.length - 1] ?? index) + 1;
}
