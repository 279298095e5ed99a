import { BulkFilter, type BulkOperationDocument } from '@sas/contracts';
import { countMatches } from './bulk-candidates';
import { MAX_BULK_PROBLEMS, bulkCommandId, claimPage, commitPage, emptyProgress, type BulkOutcome } from './bulk-progress';
import { InMemoryBulkCandidates } from './in-memory-bulk-candidates';
import type { BulkCandidate } from './bulk-filter-match';

const NOW = new Date('2030-01-01T12:00:00Z');

function operation(over: Partial<BulkOperationDocument> = {}): BulkOperationDocument {
  return {
    _id: 'op-1',
    schemaVersion: 1,
    command: 'resubmit',
    filter: BulkFilter.parse({ state: 'Error' }),
    reason: 'remote fixed',
    by: 'alice',
    state: 'Running',
    createdAt: NOW,
    updatedAt: NOW,
    finishedAt: null,
    expected: 3,
    cursor: null,
    page: null,
    revision: 0,
    progress: emptyProgress(),
    problems: [],
    runner: null,
    deleteTime: null,
    ...over,
  };
}

const ctx = { now: new Date(NOW.getTime() + 1000), runner: 'scheduler-a', retentionMs: 60_000 };

describe('commitPage', () => {
  it('moves the cursor past the page and adds its outcomes to the progress', () => {
    const outcomes: BulkOutcome[] = [
      { processId: 'p-1', kind: 'done', message: 'resubmitted' },
      { processId: 'p-2', kind: 'refused', message: 'only Error processes can be resubmitted; this one is Pending' },
    ];
    const claimed = claimPage(operation(), { matches: ['p-1', 'p-2'], examined: 5, lastId: 'p-5', end: false }, ctx);
    expect(claimed).toMatchObject({ cursor: null, revision: 1, page: { processIds: ['p-1', 'p-2'], examined: 5, lastId: 'p-5', end: false } });
    const next = commitPage(claimed, outcomes, ctx);
    expect(next).toMatchObject({
      page: null,
      cursor: 'p-5',
      revision: 2,
      state: 'Running',
      finishedAt: null,
      deleteTime: null,
      runner: 'scheduler-a',
      progress: { examined: 5, matched: 2, done: 1, refused: 1, failed: 0 },
      problems: [{ processId: 'p-2', outcome: 'refused', message: 'only Error processes can be resubmitted; this one is Pending' }],
    });
  });

  it('finishes the operation on the last page and dates it for the TTL', () => {
    const start = operation({ cursor: 'p-5', revision: 1, progress: { examined: 5, matched: 2, done: 2, refused: 0, failed: 0 } });
    const next = commitPage(claimPage(start, { matches: ['p-7'], examined: 2, lastId: 'p-7', end: true }, ctx), [{ processId: 'p-7', kind: 'failed', message: 'kept changing' }], ctx);
    expect(next).toMatchObject({ state: 'Finished', finishedAt: ctx.now, deleteTime: new Date(ctx.now.getTime() + 60_000), progress: { examined: 7, matched: 3, done: 2, failed: 1 } });
  });

  it('keeps only the latest problems', () => {
    const outcomes: BulkOutcome[] = Array.from({ length: MAX_BULK_PROBLEMS + 5 }, (_, i) => ({ processId: `p-${i}`, kind: 'refused', message: 'no' }));
    const next = commitPage(claimPage(operation(), { matches: outcomes.map((o) => o.processId), examined: outcomes.length, lastId: 'p-z', end: false }, ctx), outcomes, ctx);
    expect(next.problems).toHaveLength(MAX_BULK_PROBLEMS);
    expect(next.problems[0]?.processId).toBe('p-5');
    expect(next.progress.refused).toBe(MAX_BULK_PROBLEMS + 5);
  });

  it('refuses to commit an operation with no page claimed', () => {
    expect(() => commitPage(operation(), [], ctx)).toThrow('bulk operation op-1 has no page in flight to commit; claim one first');
  });

  it('derives the per-process command id from the operation and the process alone', () => {
    expect(bulkCommandId('op-1', 'p-1')).toBe('bulk:op-1:p-1');
    expect(bulkCommandId('op-1', 'p-1')).not.toBe(bulkCommandId('op-2', 'p-1'));
  });
});

describe('cursor paging', () => {
  const at = new Date('2030-01-01T00:00:00Z');
  const docs: BulkCandidate[] = Array.from({ length: 23 }, (_, i) => ({
    _id: `p-${String(i).padStart(2, '0')}`,
    state: i % 3 === 0 ? 'Processed' : 'Error',
    workflow: 'w',
    createdAt: at,
    updatedAt: at,
    reason: null,
    currentStep: 0,
    steps: [],
  }));
  const candidates = new InMemoryBulkCandidates(() => [...docs].reverse());
  const filter = BulkFilter.parse({ state: 'Error' });

  it('walks every process once in _id order, page after page, and says when it reached the end', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    for (;;) {
      const page = await candidates.page(filter, NOW, cursor, 5);
      pages += 1;
      seen.push(...page.matches);
      if (page.end) break;
      cursor = page.lastId;
    }
    expect(pages).toBe(5);
    expect(seen).toEqual(docs.filter((d) => d.state === 'Error').map((d) => d._id));
  });

  it('counts the matches across pages', async () => {
    await expect(countMatches(candidates, filter, NOW, 4)).resolves.toBe(15);
  });

  it('keeps the cursor when a page past the end is empty', async () => {
    await expect(candidates.page(filter, NOW, 'p-99', 5)).resolves.toEqual({ matches: [], examined: 0, lastId: 'p-99', end: true });
  });
});
