import type { BulkFilter, ProcessDocument } from '@sas/contracts';

/** The fields of a process a bulk filter reads: a query reads only these, never payloads or results. */
export type BulkCandidate = Pick<ProcessDocument, '_id' | 'state' | 'workflow' | 'createdAt' | 'updatedAt' | 'reason' | 'currentStep'> & {
  steps: readonly Pick<ProcessDocument['steps'][number], 'name' | 'error'>[];
};

/**
 * Whether a process is selected by a bulk operation created at `createdBefore`: it existed then,
 * and matches every criterion of the filter now. This is the filter's one exact definition; the
 * MongoDB query ({@link bulkFilterQuery}) only narrows what is read before it is applied.
 */
export function matchesBulkFilter(doc: BulkCandidate, filter: BulkFilter, createdBefore: Date): boolean {
  if (doc.createdAt.getTime() > createdBefore.getTime()) return false;
  if (!filter.state.includes(doc.state)) return false;
  if (filter.workflow !== undefined && doc.workflow !== filter.workflow) return false;
  if (filter.failedStep !== undefined && doc.steps[doc.currentStep]?.name !== filter.failedStep) return false;
  const at = doc[filter.timeField].getTime();
  if (filter.since && at < filter.since.getTime()) return false;
  if (filter.until && at >= filter.until.getTime()) return false;
  if (filter.text !== undefined && !mentions(doc, filter.text.toLowerCase())) return false;
  return true;
}

function mentions(doc: BulkCandidate, needle: string): boolean {
  if (doc.reason?.toLowerCase().includes(needle)) return true;
  return doc.steps.some((s) => s.error?.toLowerCase().includes(needle) ?? false);
}
