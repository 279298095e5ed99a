import { isPlainObject } from '../bson/bson-types';
import { compilePipeline } from '../aggregation/pipeline';
import { CommandError, notImplemented } from '../errors/command-error';
import { validateCollectionName } from '../storage/catalog';
import type { CommandHandler } from './command-context';
import { checkFields, cursorBatchSize, cursorReply } from './command-fields';

/**
 * `aggregate` on a collection with the implemented stages (see `compilePipeline`), returning
 * a cursor. This is what the driver's `countDocuments` sends. Database-level aggregation and
 * `explain` are refused as not implemented.
 */
export const aggregate: CommandHandler = (cmd, db, ctx) => {
  checkFields(
    cmd,
    ['pipeline', 'cursor', 'allowDiskUse', 'bypassDocumentValidation'],
    ['explain', 'hint', 'collation', 'let'],
  );
  if (typeof cmd['aggregate'] !== 'string') throw notImplemented('Database-level aggregate (aggregate: 1)');
  const name = validateCollectionName(db, cmd['aggregate']);
  if (!isPlainObject(cmd['cursor'])) {
    throw new CommandError(
      'FailedToParse',
      "The 'cursor' option is required, except for aggregate with the explain argument",
    );
  }
  const run = compilePipeline(cmd['pipeline']);
  const ns = `${db}.${name}`;
  const docs = run([...(ctx.catalog.get(db, name)?.candidates(undefined) ?? [])]);
  return cursorReply(ns, ctx.cursors.open(ns, docs, cursorBatchSize(cmd)));
};
