import { isNumeric, isPlainObject, toNumber } from '../bson/bson-types';
import { CommandError } from '../errors/command-error';
import { compileFilter } from '../query/query-matcher';
import { validateCollectionName } from '../storage/catalog';
import type { CommandHandler } from './command-context';
import { checkFields, optionalDocument } from './command-fields';
import { runStatements, withWriteErrors } from './write-errors';

/** `delete`: applies each statement `{ q, limit: 0 | 1 }` in order; reply `{ n, ok: 1 }`. */
export const deleteCommand: CommandHandler = (cmd, db, ctx) => {
  checkFields(cmd, ['deletes', 'ordered'], ['let']);
  const name = validateCollectionName(db, cmd['delete']);
  const statements = cmd['deletes'];
  if (!Array.isArray(statements))
    throw new CommandError('Location40414', "BSON field 'delete.deletes' is missing but a required field");
  let n = 0;
  const writeErrors = runStatements(statements, cmd['ordered'] !== false, (statement: unknown) => {
    if (!isPlainObject(statement))
      throw new CommandError('TypeMismatch', 'each delete statement must be an object');
    checkFields({ delete: 1, ...statement }, ['q', 'limit'], ['collation', 'hint']);
    const limit = statement['limit'];
    if (!isNumeric(limit) || (toNumber(limit) !== 0 && toNumber(limit) !== 1)) {
      throw new CommandError(
        'FailedToParse',
        `The limit field in delete objects must be 0 or 1. Got ${String(limit)}`,
      );
    }
    const filter = optionalDocument(statement, 'q') ?? {};
    const matches = compileFilter(filter);
    const collection = ctx.catalog.get(db, name);
    if (collection === undefined) return;
    const targets = collection.select(filter, matches, { want: toNumber(limit) === 1 ? 1 : undefined });
    for (const doc of toNumber(limit) === 1 ? targets.slice(0, 1) : targets) {
      collection.remove(doc);
      n++;
    }
  });
  return withWriteErrors({ n, ok: 1 }, writeErrors);
};
