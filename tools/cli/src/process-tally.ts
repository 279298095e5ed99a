import type { BulkCandidate } from '@sas/bulk';
import type { ProcessDocument } from '@sas/contracts';

/** What `sas processes` reads of a process: what the filter reads, plus what a listing line shows. */
export type ListedProcess = BulkCandidate & Pick<ProcessDocument, 'orderId'>;

/** Label of a process that has no current step (it finished every step, or never started one). */
const NO_STEP = '-';

/**
 * Counts of the processes a filter selects, by state, by workflow and by current step (for an
 * Error process, the step that failed: what `--failed-step` selects), plus the `limit` most
 * recently updated ones. Fed one process at a time, so a large store is never held in memory.
 */
export class ProcessTally {
  total = 0;
  readonly byState = new Map<string, number>();
  readonly byWorkflow = new Map<string, number>();
  readonly byStep = new Map<string, number>();
  private readonly newest: ListedProcess[] = [];

  constructor(private readonly limit: number) {}

  /** Counts a process that matched the filter. */
  add(doc: ListedProcess): void {
    this.total += 1;
    bump(this.byState, doc.state);
    bump(this.byWorkflow, doc.workflow);
    bump(this.byStep, currentStepOf(doc));
    if (this.limit === 0) return;
    // Kept sorted newest first and cut at the limit; the same order as the dashboard's list.
    const at = this.newest.findIndex((kept) => newestFirst(doc, kept) < 0);
    if (at < 0) this.newest.push(doc);
    else this.newest.splice(at, 0, doc);
    if (this.newest.length > this.limit) this.newest.length = this.limit;
  }

  /** The `limit` most recently updated processes, newest first (ties by process id, descending). */
  latest(): readonly ListedProcess[] {
    return this.newest;
  }
}

/** The name of the step a process stands at, or {@link NO_STEP}. */
function currentStepOf(doc: Pick<ListedProcess, 'steps' | 'currentStep'>): string {
  return doc.steps[doc.currentStep]?.name ?? NO_STEP;
}

/** `Error 12 · Processing 3`, largest first (ties by name), or `none`. */
export function renderCounts(counts: ReadonlyMap<string, number>): string {
  const sorted = [...counts].sort(([a, m], [b, n]) => n - m || a.localeCompare(b));
  return sorted.length === 0 ? 'none' : sorted.map(([k, n]) => `${k} ${n}`).join(' · ');
}

/** One listing line: when it last changed, state, process id, order, workflow, current step, reason. */
export function renderProcessLine(doc: ListedProcess): string {
  const reason = doc.reason ? `  ${doc.reason.length > 100 ? `${doc.reason.slice(0, 99)}…` : doc.reason}` : '';
  return `${doc.updatedAt.toISOString()}  ${doc.state.padEnd(12)} ${doc._id}  order ${doc.orderId}  ${doc.workflow}  at ${currentStepOf(doc)}${reason}`;
}

function bump(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function newestFirst(a: ListedProcess, b: ListedProcess): number {
  return b.updatedAt.getTime() - a.updatedAt.getTime() || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0);
}
