import type { Doc } from '../bson/bson-types';
import { CommandError } from '../errors/command-error';
import { Projection } from '../query/projection';
import { compileFilter } from '../query/query-matcher';
import { Sorter } from '../query/sorter';
import { validateCollectionName } from '../storage/catalog';
import type { CommandHandler } from './command-context';
import { checkFields, cursorReply, optionalDocument, optionalInteger } from './command-fields';

const UNSUPPORTED = [
  'hint',
  'collation',
  'min',
  'max',
  'let',
  'tailable',
  'awaitData',
  'oplogReplay',
  'readOnce',
  'returnKey',
  'showRecordId',
  'allowSpeculativeMajorityRead',
  'requestResumeToken',
  'resumeAfter',
  '$_requestResumeToken',
];

/**
 * `find`: filter, sort, skip, limit, projection, batchSize (first batch
 * 101 by default) and singleBatch, returning a cursor for `getMore`. The whole result is
 * computed now, so the read is one atomic snapshot.
 */
export const find: CommandHandler = (cmd, db, ctx) => {
  checkFields(
    cmd,
    [
      'filter',
      'sort',
      'projection',
      'skip',
      'limit',
      'batchSize',
      'singleBatch',
      'allowDiskUse',
      'noCursorTimeout',
      'allowPartialResults',
      'ntoreturn',
    ],
    UNSUPPORTED,
  );
  const name = validateCollectionName(db, cmd['find']);
  const filter = optionalDocument(cmd, 'filter');
  const matches = compileFilter(filter);
  const sorter = Sorter.compile(optionalDocument(cmd, 'sort'));
  const projection = Projection.compile(optionalDocument(cmd, 'projection'));
  const skip = optionalInteger(cmd, 'skip') ?? 0;
  const limit = optionalInteger(cmd, 'limit') ?? 0;
  const batchSize = optionalInteger(cmd, 'batchSize');
  // As MongoDB's find command: negative values are errors (drivers turn limit(-n) into singleBatch).
  for (const [field, value] of [
    ['skip', skip],
    ['limit', limit],
    ['batchSize', batchSize ?? 0],
  ] as const) {
    if (value < 0)
      throw new CommandError(
        'Location51024',
        `BSON field '${field}' value must be >= 0, actual value '${value}'`,
      );
  }
  const singleBatch = cmd['singleBatch'] === true;

  const ns = `${db}.${name}`;
  const collection = ctx.catalog.get(db, name);
  const want = limit === 0 ? undefined : skip + limit;
  let docs: Doc[] = collection?.select(filter, matches, { sorter, want }) ?? [];
  docs = docs.slice(skip, limit === 0 ? undefined : skip + limit);
  if (projection) docs = docs.map((d) => projection.apply(d));
  const firstBatchSize = singleBatch && limit > 0 && batchSize === undefined ? limit : batchSize;
  return cursorReply(ns, ctx.cursors.open(ns, docs, firstBatchSize, singleBatch));
};
