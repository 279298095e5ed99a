import { isPlainObject, type Doc } from '../bson/bson-types';
import { canonicallyEqual } from '../bson/canonically-equal';
import { CommandError } from '../errors/command-error';
import { compileFilter } from '../query/query-matcher';
import { validateCollectionName } from '../storage/catalog';
import { UpdateApplier } from '../update/update-applier';
import { buildUpsertDocument } from '../update/upsert-seed';
import type { CommandHandler } from './command-context';
import { checkFields, optionalDocument } from './command-fields';
import { runStatements, withWriteErrors } from './write-errors';

const STATEMENT_FIELDS = ['q', 'u', 'upsert', 'multi'];
const STATEMENT_UNSUPPORTED = ['arrayFilters', 'collation', 'hint', 'c', 'sort', 'upsertSupplied'];

/**
 * `update`: applies each statement `{ q, u, upsert, multi }` in order. Reply as MongoDB:
 * `{ n, nModified, upserted: [{ index, _id }], writeErrors?, ok: 1 }`; `nModified` counts only
 * documents that actually changed. Errors of one statement (bad modifier, type mismatch,
 * duplicate key, immutable `_id`) are that statement's write error.
 */
export const update: CommandHandler = (cmd, db, ctx) => {
  checkFields(cmd, ['updates', 'ordered', 'bypassDocumentValidation'], ['let']);
  const name = validateCollectionName(db, cmd['update']);
  const statements = cmd['updates'];
  if (!Array.isArray(statements))
    throw new CommandError('Location40414', "BSON field 'update.updates' is missing but a required field");
  let n = 0;
  let nModified = 0;
  const upserted: Doc[] = [];
  const writeErrors = runStatements(statements, cmd['ordered'] !== false, (statement: unknown, index) => {
    if (!isPlainObject(statement))
      throw new CommandError('TypeMismatch', 'each update statement must be an object');
    checkFields({ update: 1, ...statement }, STATEMENT_FIELDS, STATEMENT_UNSUPPORTED);
    const filter = optionalDocument(statement, 'q') ?? {};
    const matches = compileFilter(filter);
    const applier = UpdateApplier.compile(statement['u']);
    const multi = statement['multi'] === true;
    if (multi && applier.isReplacement)
      throw new CommandError('FailedToParse', 'multi update is not supported for replacement-style update');
    const now = ctx.now();
    const collection = ctx.catalog.get(db, name);
    const targets = collection?.select(filter, matches, { want: multi ? undefined : 1 }) ?? [];
    if (targets.length === 0) {
      if (statement['upsert'] !== true) return;
      const doc = buildUpsertDocument(filter, applier, { now });
      ctx.catalog.ensure(db, name).collection.insert(doc);
      n++;
      upserted.push({ index, _id: doc['_id'] });
      return;
    }
    for (const current of multi ? targets : targets.slice(0, 1)) {
      const next = applier.apply(current, { isInsert: false, now });
      n++;
      if (canonicallyEqual(next, current)) continue;
      collection?.replace(current, next);
      nModified++;
    }
  });
  const reply: Doc = { n, nModified };
  if (upserted.length > 0) reply['upserted'] = upserted;
  return withWriteErrors({ ...reply, ok: 1 }, writeErrors);
};
