import type { BulkFilter } from '@sas/contracts';
import type { BulkCandidates, BulkPage } from './bulk-candidates';
import { matchesBulkFilter, type BulkCandidate } from './bulk-filter-match';

/**
 * {@link BulkCandidates} over processes held in memory (`InMemoryProcessStore.list`), for tests
 * and the simulation. It reads through {@link matchesBulkFilter} alone, the filter's definition.
 */
export class InMemoryBulkCandidates implements BulkCandidates {
  constructor(private readonly all: () => readonly BulkCandidate[]) {}

  async page(filter: BulkFilter, createdBefore: Date, cursor: string | null, limit: number): Promise<BulkPage> {
    const after = this.all()
      .filter((d) => cursor === null || d._id > cursor)
      .sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
    const read = after.slice(0, limit);
    return {
      matches: read.filter((d) => matchesBulkFilter(d, filter, createdBefore)).map((d) => d._id),
      examined: read.length,
      lastId: read.at(-1)?._id ?? cursor,
      end: after.length <= limit,
    };
  }
}
