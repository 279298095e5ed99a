import type { ProcessDocument, ProcessEventEntry } from '@sas/contracts';
import { createProcess, orderFulfilmentV1 } from '@sas/workflow';

/** A complete, valid process document for tests (the real `createProcess`); `overrides` set what a test cares about. */
export function processDoc(overrides: Partial<ProcessDocument> & { _id: string }): ProcessDocument {
  const at = overrides.updatedAt ?? new Date('2025-01-01T00:00:00.000Z');
  const created = createProcess({
    processId: overrides._id,
    orderId: `order-${overrides._id}`,
    payload: { sku: 'kettle', amount: 2500 },
    replyTo: null,
    workflow: orderFulfilmentV1,
    now: at.getTime(),
  });
  return { ...created, ...overrides };
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
