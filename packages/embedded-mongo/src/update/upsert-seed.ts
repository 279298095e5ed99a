import { ObjectId } from 'bson';
import { isPlainObject, type Doc } from '../bson/bson-types';
import { isOperatorObject } from '../query/query-matcher';
import { splitPath } from '../query/field-path';
import { setPath } from './update-paths';
import type { ApplyOptions, UpdateApplier } from './update-applier';

function collectEqualities(filter: Doc, seed: Doc): void {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const clause of value) if (isPlainObject(clause)) collectEqualities(clause, seed);
      continue;
    }
    if (key.startsWith('$')) continue;
    if (isOperatorObject(value)) {
      if ('$eq' in value) setPath(seed, splitPath(key), value['$eq']);
      continue;
    }
    setPath(seed, splitPath(key), value);
  }
}

/**
 * Builds the document an upsert inserts, as MongoDB does: seed it from the filter's equality
 * fields (`{ orderId: 'x', state: { $eq: 'a' } }`, including inside `$and`), then apply the
 * update as an insert (so `$setOnInsert` applies), and generate an ObjectId `_id` when none was
 * given. A replacement upsert keeps only the filter's `_id`. `_id` comes first.
 */
export function buildUpsertDocument(
  filter: Doc,
  update: UpdateApplier,
  options: Omit<ApplyOptions, 'isInsert'>,
): Doc {
  const seed: Doc = {};
  collectEqualities(filter, seed);
  const base: Doc = update.isReplacement ? ('_id' in seed ? { _id: seed['_id'] } : {}) : seed;
  const built = update.apply(base, { ...options, isInsert: true });
  const { _id: id, ...rest } = built;
  return { _id: id === undefined ? new ObjectId() : id, ...rest };
}
