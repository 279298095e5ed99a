import { isPlainObject } from '../bson/bson-types';
import { compilePipeline } from '../aggregation/pipeline';
import { CommandError, notImplemented } from '../errors/command-error';
import { compileFilter } from '../query/query-matcher';
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
  // A leading $match reads through an index when one fits (countDocuments sends one); the stage
  // itself still runs, so the result is the same either way.
  const first: unknown = (cmd['pipeline'] as unknown[])[0];
  const match = isPlainObject(first) && isPlainObject(first['$match']) ? first['$match'] : undefined;
  const docs = run(ctx.catalog.get(db, name)?.select(match, compileFilter(match)) ?? []);
  return cursorReply(ns, ctx.cursors.open(ns, docs, cursorBatchSize(cmd)));
};
