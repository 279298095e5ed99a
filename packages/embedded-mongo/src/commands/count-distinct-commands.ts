import { compareValues } from '../bson/bson-order';
import { canonicalKey } from '../bson/canonical-key';
import { CommandError } from '../errors/command-error';
import { expandedLeafValues, splitPath } from '../query/field-path';
import { compileFilter } from '../query/query-matcher';
import { validateCollectionName } from '../storage/catalog';
import type { CommandHandler } from './command-context';
import { checkFields, optionalDocument, optionalInteger } from './command-fields';

/** `count`: matching documents after skip and limit (what `estimatedDocumentCount` sends). */
export const count: CommandHandler = (cmd, db, ctx) => {
  checkFields(cmd, ['query', 'limit', 'skip', 'fields'], ['hint', 'collation']);
  const name = validateCollectionName(db, cmd['count']);
  const filter = optionalDocument(cmd, 'query');
  const matches = compileFilter(filter);
  const skip = optionalInteger(cmd, 'skip') ?? 0;
  if (skip < 0) throw new CommandError('BadValue', 'skip value is negative in count query');
  const limit = Math.abs(optionalInteger(cmd, 'limit') ?? 0);
  const total = ctx.catalog.get(db, name)?.select(filter, matches).length ?? 0;
  const afterSkip = Math.max(0, total - skip);
  return { n: limit === 0 ? afterSkip : Math.min(afterSkip, limit), ok: 1 };
};

/**
 * `distinct`: the distinct values of a field among matching documents; array values count
 * element by element, missing fields not at all; values come back in BSON order.
 */
export const distinct: CommandHandler = (cmd, db, ctx) => {
  checkFields(cmd, ['key', 'query'], ['hint', 'collation']);
  const name = validateCollectionName(db, cmd['distinct']);
  const key = cmd['key'];
  if (typeof key !== 'string')
    throw new CommandError('Location40414', "BSON field 'distinct.key' is missing but a required field");
  const parts = splitPath(key);
  const filter = optionalDocument(cmd, 'query');
  const matches = compileFilter(filter);
  const seen = new Map<string, unknown>();
  for (const doc of ctx.catalog.get(db, name)?.select(filter, matches) ?? []) {
    for (const value of expandedLeafValues(doc, parts)) {
      if (value !== undefined && !seen.has(canonicalKey(value))) seen.set(canonicalKey(value), value);
    }
  }
  return { values: [...seen.values()].sort(compareValues), ok: 1 };
};
