import { ObjectId } from 'bson';
import { isPlainObject, type Doc } from '../bson/bson-types';
import { CommandError } from '../errors/command-error';
import { checkInsertDepth } from '../storage/nesting-limit';
import type { CommandHandler } from './command-context';
import { checkFields } from './command-fields';
import { runStatements, withWriteErrors } from './write-errors';

/** Puts `_id` first (generating an ObjectId when absent), as MongoDB stores documents. */
function withIdFirst(doc: Doc): Doc {
  const { _id: id, ...rest } = doc;
  return { _id: id === undefined ? new ObjectId() : id, ...rest };
}

/**
 * `insert`: stores each document, creating the collection on first write. Duplicate keys and
 * documents nested past MongoDB's 180 levels become `writeErrors` with `ok: 1`; ordered inserts stop at the first error, unordered ones continue.
 */
export const insert: CommandHandler = (cmd, db, ctx) => {
  checkFields(cmd, ['documents', 'ordered', 'bypassDocumentValidation'], ['let']);
  const documents = cmd['documents'];
  if (!Array.isArray(documents))
    throw new CommandError('Location40414', "BSON field 'insert.documents' is missing but a required field");
  const { collection } = ctx.catalog.ensure(db, cmd['insert'] as string);
  let n = 0;
  const writeErrors = runStatements(documents, cmd['ordered'] !== false, (doc: unknown) => {
    if (!isPlainObject(doc))
      throw new CommandError('TypeMismatch', 'each document to insert must be an object');
    checkInsertDepth(doc);
    collection.insert(withIdFirst(doc));
    n++;
  });
  return withWriteErrors({ n, ok: 1 }, writeErrors);
};
