import type { ProcessDocument, ProcessEventEntry } from '@sas/contracts';

/** A complete, valid process document for tests; `overrides` set what a test cares about. */
export function processDoc(overrides: Partial<ProcessDocument> & { _id: string }): ProcessDocument {
  const at = overrides.updatedAt ?? new Date('2025-01-01T00:00:00.000Z');
  return {
    schemaVersion: 1,
    orderId: `order-${overrides._id}`,
    workflow: 'order-fulfilment',
    workflowVersion: 1,
    payload: { sku: 'kettle', amount: 2500 },
    state: 'Pending',
    mode: 'forward',
    lockedBy: null,
    completeBy: null,
    failureCount: 0,
    revision: 0,
    attempt: 0,
    notBefore: at,
    currentStep: 0,
    steps: [
      {
        name: 'reserve-inventory',
        agent: 'inventory',
        operation: 'reserve',
        compensation: 'release',
        state: 'NotStarted',
        dispatches: 0,
        idempotencyKey: `${overrides._id}/reserve-inventory`,
        startedAt: null,
        finishedAt: null,
        result: null,
        error: null,
      },
    ],
    waits: 0,
    reason: null,
    canceled: false,
    replyTo: null,
    createdAt: at,
    updatedAt: at,
    deleteTime: null,
    ...overrides,
  };
}

/** One history entry of a process, for tests. */
export function historyEntry(doc: ProcessDocument, overrides: Partial<ProcessEventEntry> = {}): ProcessEventEntry {
  return {
    processId: doc._id,
    orderId: doc.orderId,
    who: 'submission-1',
    at: doc.createdAt,
    from: null,
    to: 'Pending',
    why: 'submitted',
    attempt: 0,
    step: null,
    deleteTime: null,
    ...overrides,
  };
}
