import type { BulkOperationDocument, BulkProblem, BulkProgress } from '@sas/contracts';
import type { BulkPage } from './bulk-candidates';

/** What acting on one process came to. */
export interface BulkOutcome {
  processId: string;
  kind: 'done' | 'refused' | 'failed';
  message: string;
}

/** Problems an operation keeps to show (the latest): enough to see a pattern, bounded for the document. */
export const MAX_BULK_PROBLEMS = 20;

/** Progress of an operation that has not read anything yet. */
export function emptyProgress(): BulkProgress {
  return { examined: 0, matched: 0, done: 0, refused: 0, failed: 0 };
}

/** What committing a page needs besides the page. */
export interface PageContext {
  now: Date;
  runner: string;
  /** How long a finished operation stays before the TTL removes it. */
  retentionMs: number;
}

/**
 * The operation with a page claimed: its matching processes are written down before any is acted
 * on, so whoever resumes the operation after a crash finishes that same set of processes.
 */
export function claimPage(op: BulkOperationDocument, page: BulkPage, ctx: PageContext): BulkOperationDocument {
  return { ...op, page: { processIds: page.matches, examined: page.examined, lastId: page.lastId, end: page.end }, revision: op.revision + 1, runner: ctx.runner, updatedAt: ctx.now };
}

/**
 * The operation after its claimed page: the cursor moves past the page, its outcomes are added,
 * and the operation is Finished when the page was the last. Pure: the runner commits the result
 * only on the revision it read, so a page counts once however often it was run.
 */
export function commitPage(op: BulkOperationDocument, outcomes: readonly BulkOutcome[], ctx: PageContext): BulkOperationDocument {
  const page = op.page;
  if (!page) throw new Error(`bulk operation ${op._id} has no page in flight to commit; claim one first`);
  const progress = { ...op.progress, examined: op.progress.examined + page.examined, matched: op.progress.matched + outcomes.length };
  const problems: BulkProblem[] = [...op.problems];
  for (const o of outcomes) {
    progress[o.kind] += 1;
    if (o.kind !== 'done') problems.push({ processId: o.processId, outcome: o.kind, message: o.message });
  }
  const finished = page.end;
  return {
    ...op,
    cursor: page.lastId,
    page: null,
    revision: op.revision + 1,
    progress,
    problems: problems.slice(-MAX_BULK_PROBLEMS),
    runner: ctx.runner,
    updatedAt: ctx.now,
    state: finished ? 'Finished' : 'Running',
    finishedAt: finished ? ctx.now : null,
    deleteTime: finished ? new Date(ctx.now.getTime() + ctx.retentionMs) : null,
  };
}

/** The per-process command id: the same for every run of the operation over that process, so a repeat is recognised. */
export function bulkCommandId(operationId: string, processId: string): string {
  return `bulk:${operationId}:${processId}`;
}
