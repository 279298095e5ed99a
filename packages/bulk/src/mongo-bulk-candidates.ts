import type { BulkFilter, ProcessDocument } from '@sas/contracts';
import { CollectionNames } from '@sas/store';
import type { Collection, Db } from 'mongodb';
import type { BulkCandidates, BulkPage } from './bulk-candidates';
import { matchesBulkFilter, type BulkCandidate } from './bulk-filter-match';
import { afterCursor, bulkFilterQuery } from './bulk-filter-query';

/** Only what the filter reads: never payloads, step results or outboxes. */
const PROJECTION = { _id: 1, state: 1, workflow: 1, createdAt: 1, updatedAt: 1, reason: 1, currentStep: 1, 'steps.name': 1, 'steps.error': 1 } as const;

/**
 * {@link BulkCandidates} on the `processes` collection: MongoDB narrows by the indexed fields,
 * {@link matchesBulkFilter} decides. Pages walk `_id` ascending, so `examined` counts what the
 * query returned, not the whole collection.
 */
export class MongoBulkCandidates implements BulkCandidates {
  private readonly processes: Collection<ProcessDocument>;

  constructor(db: Db) {
    this.processes = db.collection<ProcessDocument>(CollectionNames.processes);
  }

  async page(filter: BulkFilter, createdBefore: Date, cursor: string | null, limit: number): Promise<BulkPage> {
    // One more than asked tells whether anything follows, without a second query.
    const read = await this.processes
      .find(afterCursor(bulkFilterQuery(filter, createdBefore), cursor), { projection: PROJECTION })
      .sort({ _id: 1 })
      .limit(limit + 1)
      .toArray();
    const page = read.slice(0, limit) as unknown as BulkCandidate[];
    return {
      matches: page.filter((d) => matchesBulkFilter(d, filter, createdBefore)).map((d) => d._id),
      examined: page.length,
      lastId: page.at(-1)?._id ?? cursor,
      end: read.length <= limit,
    };
  }
}
