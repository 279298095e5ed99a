import type { ProcessDocument } from '@sas/contracts';

/**
 * What the claim and sweep queries read of a process: enough to pick it and to give it up to an
 * operator, never its payload, results or outbox. A document that cannot be decoded (a poison
 * payload) then breaks only the one full read of that process, not every claim behind it.
 */
export type ProcessSummary = Pick<
  ProcessDocument,
  '_id' | 'orderId' | 'workflow' | 'workflowVersion' | 'state' | 'mode' | 'revision' | 'attempt' | 'replyTo' | 'currentStep' | 'notBefore' | 'completeBy' | 'updatedAt'
>;

/** MongoDB projection of {@link ProcessSummary}. */
export const PROCESS_SUMMARY_PROJECTION = {
  _id: 1,
  orderId: 1,
  workflow: 1,
  workflowVersion: 1,
  state: 1,
  mode: 1,
  revision: 1,
  attempt: 1,
  replyTo: 1,
  currentStep: 1,
  notBefore: 1,
  completeBy: 1,
  updatedAt: 1,
} as const;

/** What the sweep for owed outboxes reads: the outbox and what delivering it needs, no payload. */
export type OwedOutbox = Pick<ProcessDocument, '_id' | 'orderId' | 'revision' | 'outbox' | 'deleteTime'>;

/** MongoDB projection of {@link OwedOutbox}. */
export const OWED_OUTBOX_PROJECTION = { _id: 1, orderId: 1, revision: 1, outbox: 1, deleteTime: 1 } as const;

/** Picks the summary fields of a full document (the in-memory store's projection). */
export function summarize(doc: ProcessDocument): ProcessSummary {
  const { _id, orderId, workflow, workflowVersion, state, mode, revision, attempt, replyTo, currentStep, notBefore, completeBy, updatedAt } = doc;
  return { _id, orderId, workflow, workflowVersion, state, mode, revision, attempt, replyTo, currentStep, notBefore, completeBy, updatedAt };
}
