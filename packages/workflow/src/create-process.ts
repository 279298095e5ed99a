import { SCHEMA_VERSION, type JsonObject, type ProcessDocument, type StatusEvents } from '@sas/contracts';
import { idempotencyKey } from './idempotency-key';
import type { WorkflowDefinition } from './workflow-definition';

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
    steps: input.workflow.steps.map((s) => ({
      name: s.name,
      agent: s.agent,
      operation: s.operation,
      compensation: s.compensation,
      state: 'NotStarted',
      dispatches: 0,
      idempotencyKey: idempotencyKey(input.processId, s.name, 'forward'),
      startedAt: null,
      finishedAt: null,
      result: null,
      error: null,
    })),
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
