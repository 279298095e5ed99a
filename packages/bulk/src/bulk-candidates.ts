import type { BulkFilter } from '@sas/contracts';

/** One page of the processes a bulk operation walks through, in `_id` order. */
export interface BulkPage {
  /** Processes of the page that match the filter, in `_id` order. */
  matches: string[];
  /** How many processes were read, matching or not. */
  examined: number;
  /** `_id` of the last process read: the next page's cursor (the given cursor when none was read). */
  lastId: string | null;
  /** Whether nothing follows this page. */
  end: boolean;
}

/**
 * Where a bulk operation finds its processes. The page is read fresh each time, so a process is
 * judged by its state when the operation reaches it (decision 50).
 */
export interface BulkCandidates {
  /** Up to `limit` processes after `cursor` (exclusive; null: from the start) that could match, and which do. */
  page(filter: BulkFilter, createdBefore: Date, cursor: string | null, limit: number): Promise<BulkPage>;
}

/** How many processes the filter selects now, walking every page (a dry run, or the expected count). */
export async function countMatches(candidates: BulkCandidates, filter: BulkFilter, createdBefore: Date, pageSize = 500): Promise<number> {
  let cursor: string | null = null;
  let count = 0;
  for (;;) {
    const page = await candidates.page(filter, createdBefore, cursor, pageSize);
    count += page.matches.length;
    if (page.end) return count;
    cursor = page.lastId;
  }
}
