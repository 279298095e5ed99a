import { SCHEMA_VERSION, type JsonObject, type ProcessDocument, type StatusEvents, type StepRecord } from '@sas/contracts';
import { idempotencyKey } from './idempotency-key';
import type { GroupMember, StepDefinition, WorkflowDefinition } from './workflow-definition';

/** What a new process is made of. */
export interface NewProcess {
  processId: string;
  orderId: string;
  payload: JsonObject;
  replyTo: string | null;
  /** Which status events to send to `replyTo`. @default all (the field is left out) */
  statusEvents?: StatusEvents | undefined;
  workflow: WorkflowDefinition;
  now: number;
}

/** The process document the submission service inserts: Pending, claimable at once, every step NotStarted. */
export function createProcess(input: NewProcess): ProcessDocument {
  const now = new Date(input.now);
  return {
    _id: input.processId,
    schemaVersion: SCHEMA_VERSION,
    orderId: input.orderId,
    workflow: input.workflow.name,
    workflowVersion: input.workflow.version,
    payload: input.payload,
    state: 'Pending',
    mode: 'forward',
    lockedBy: null,
    completeBy: null,
    failureCount: 0,
    revision: 0,
    attempt: 0,
    notBefore: now,
    currentStep: 0,
    steps: stepRecords(input.processId, input.workflow),
    waits: 0,
    reason: null,
    canceled: false,
    replyTo: input.replyTo,
    ...(input.statusEvents !== undefined && { statusEvents: input.statusEvents }),
    createdAt: now,
    updatedAt: now,
    deleteTime: null,
  };
}

/**
 * The workflow's entries flattened into one record each, in order: a task, each member of a
 * parallel group (naming its group), a wait step, a signal step. Wait and signal records have no
 * agent and nothing to undo.
 */
export function stepRecords(processId: string, workflow: WorkflowDefinition): StepRecord[] {
  return workflow.steps.flatMap((entry): StepRecord[] => {
    if ('parallel' in entry) return entry.parallel.map((m) => ({ ...taskRecord(processId, m), group: entry.name }));
    if ('wait' in entry) return [{ ...notStarted(processId, entry.name, '', 'wait', null), kind: 'wait' }];
    if ('signal' in entry) {
      return [{ ...notStarted(processId, entry.name, '', 'signal', null), kind: 'signal', signal: entry.signal.name }];
    }
    return [taskRecord(processId, entry)];
  });
}

function taskRecord(processId: string, step: StepDefinition | GroupMember): StepRecord {
  return notStarted(processId, step.name, step.agent, step.operation, step.compensation);
}

function notStarted(processId: string, name: string, agent: string, operation: string, compensation: string | null): StepRecord {
  return {
    name,
    agent,
    operation,
    compensation,
    state: 'NotStarted',
    dispatches: 0,
    idempotencyKey: idempotencyKey(processId, name, 'forward'),
    startedAt: null,
    finishedAt: null,
    result: null,
    error: null,
  };
}
