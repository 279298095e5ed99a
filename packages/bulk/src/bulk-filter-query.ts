import type { BulkFilter, ProcessDocument } from '@sas/contracts';
import type { Filter } from 'mongodb';

/**
 * The part of a bulk filter MongoDB evaluates: state, workflow, time range, creation bound, and a
 * step of that name existing. The rest (that step being the current one, the text) is checked by
 * {@link matchesBulkFilter} on what this returns: the embedded store has no `$regex`, and a
 * positional "current step" has no query form.
 */
export function bulkFilterQuery(filter: BulkFilter, createdBefore: Date): Filter<ProcessDocument> {
  const range: Record<string, Date> = {};
  if (filter.since) range['$gte'] = filter.since;
  if (filter.until) range['$lt'] = filter.until;
  const created: Record<string, Date> = { $lte: createdBefore };
  // Both bounds on createdAt go into one condition: two keys of the same name would overwrite each other.
  if (filter.timeField === 'createdAt') Object.assign(created, range);
  return {
    state: filter.state.length === 1 ? filter.state[0] : { $in: filter.state },
    ...(filter.workflow !== undefined ? { workflow: filter.workflow } : {}),
    ...(filter.failedStep !== undefined ? { 'steps.name': filter.failedStep } : {}),
    createdAt: created,
    ...(filter.timeField === 'updatedAt' && Object.keys(range).length > 0 ? { updatedAt: range } : {}),
  } as Filter<ProcessDocument>;
}

/** The page after `cursor` in `_id` order: the operation's stable order, so a resumed runner continues where the last page ended. */
export function afterCursor(query: Filter<ProcessDocument>, cursor: string | null): Filter<ProcessDocument> {
  return cursor === null ? query : ({ ...query, _id: { $gt: cursor } } as Filter<ProcessDocument>);
}
