import type { Doc } from '../bson/bson-types';
import { canonicallyEqual } from '../bson/canonically-equal';
import { CommandError } from '../errors/command-error';
import { Projection } from '../query/projection';
import { compileFilter } from '../query/query-matcher';
import { Sorter } from '../query/sorter';
import { validateCollectionName } from '../storage/catalog';
import { UpdateApplier } from '../update/update-applier';
import { buildUpsertDocument } from '../update/upsert-seed';
import type { CommandHandler } from './command-context';
import { checkFields, optionalDocument } from './command-fields';

function validateCombination(cmd: Doc): void {
  const remove = cmd['remove'] === true;
  const hasUpdate = cmd['update'] !== undefined;
  if (remove && hasUpdate)
    throw new CommandError('FailedToParse', 'Cannot specify both an update and remove=true');
  if (!remove && !hasUpdate)
    throw new CommandError('FailedToParse', 'Either an update or remove=true must be specified');
  if (remove && cmd['upsert'] === true)
    throw new CommandError('FailedToParse', 'Cannot specify both upsert=true and remove=true');
  if (remove && cmd['new'] === true) {
    throw new CommandError(
      'FailedToParse',
      "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document",
    );
  }
}

/**
 * `findAndModify`: atomically picks the first matching document (after `sort`) and updates,
 * upserts or removes it, returning the document before or (`new: true`) after, projected by
 * `fields`. Reply `{ lastErrorObject: { n, updatedExisting, upserted? }, value, ok: 1 }`;
 * failures (duplicate key, bad update) are command errors, as in MongoDB.
 */
export const findAndModify: CommandHandler = (cmd, db, ctx) => {
  checkFields(
    { findAndModify: 1, ...cmd },
    [
      'findandmodify',
      'query',
      'sort',
      'remove',
      'update',
      'new',
      'fields',
      'upsert',
      'bypassDocumentValidation',
    ],
    ['arrayFilters', 'collation', 'hint', 'let'],
  );
  validateCombination(cmd);
  const name = validateCollectionName(db, cmd['findAndModify'] ?? cmd['findandmodify']);
  const filter = optionalDocument(cmd, 'query') ?? {};
  const matches = compileFilter(filter);
  const sorter = Sorter.compile(optionalDocument(cmd, 'sort'));
  const projection = Projection.compile(optionalDocument(cmd, 'fields'));
  const applier = cmd['remove'] === true ? undefined : UpdateApplier.compile(cmd['update']);
  const show = (doc: Doc | undefined): Doc | null =>
    doc === undefined ? null : projection ? projection.apply(doc) : doc;

  const collection = ctx.catalog.get(db, name);
  const target = collection?.select(filter, matches, { sorter, want: 1 })[0];

  if (applier === undefined) {
    if (target === undefined || collection === undefined)
      return { lastErrorObject: { n: 0 }, value: null, ok: 1 };
    collection.remove(target);
    return { lastErrorObject: { n: 1 }, value: show(target), ok: 1 };
  }
  const now = ctx.now();
  if (target !== undefined && collection !== undefined) {
    const next = applier.apply(target, { isInsert: false, now });
    if (!canonicallyEqual(next, target)) collection.replace(target, next);
    return {
      lastErrorObject: { n: 1, updatedExisting: true },
      value: show(cmd['new'] === true ? next : target),
      ok: 1,
    };
  }
  if (cmd['upsert'] !== true)
    return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
  const doc = buildUpsertDocument(filter, applier, { now });
  ctx.catalog.ensure(db, name).collection.insert(doc);
  return {
    lastErrorObject: { n: 1, updatedExisting: false, upserted: doc['_id'] },
    value: cmd['new'] === true ? show(doc) : null,
    ok: 1,
  };
};
