import type { Doc } from '../bson/bson-types';
import { CommandError } from '../errors/command-error';
import { compileFilter } from '../query/query-matcher';
import { validateCollectionName } from '../storage/catalog';
import { ID_INDEX } from '../storage/index-spec';
import type { CommandHandler } from './command-context';
import { checkFields, cursorBatchSize, cursorReply, optionalDocument } from './command-fields';

const CREATE_OPTIONS_NOT_IMPLEMENTED = [
  'capped',
  'size',
  'max',
  'validator',
  'validationLevel',
  'validationAction',
  'viewOn',
  'pipeline',
  'collation',
  'timeseries',
  'expireAfterSeconds',
  'clusteredIndex',
  'changeStreamPreAndPostImages',
  'storageEngine',
  'indexOptionDefaults',
  'idIndex',
  'autoIndexId',
  'encryptedFields',
  'recordPreImages',
];

/** `create`: an explicit empty collection; NamespaceExists (48) if it exists. Capped collections, views, validators and time series are refused as not implemented. */
export const create: CommandHandler = (cmd, db, ctx) => {
  checkFields(cmd, [], CREATE_OPTIONS_NOT_IMPLEMENTED);
  const name = validateCollectionName(db, cmd['create']);
  if (ctx.catalog.get(db, name) !== undefined)
    throw new CommandError('NamespaceExists', `Collection ${db}.${name} already exists.`);
  ctx.catalog.ensure(db, name);
  return { ok: 1 };
};

/** `drop`: removes a collection; dropping a missing one succeeds, as in MongoDB 7. */
export const drop: CommandHandler = (cmd, db, ctx) => {
  checkFields(cmd, []);
  const name = validateCollectionName(db, cmd['drop']);
  const dropped = ctx.catalog.drop(db, name);
  if (dropped === undefined) return { ok: 1 };
  return { nIndexesWas: dropped.indexes.list().length, ns: dropped.ns, ok: 1 };
};

/** `dropDatabase`: removes a database and everything in it. */
export const dropDatabase: CommandHandler = (cmd, db, ctx) => {
  checkFields(cmd, []);
  ctx.catalog.dropDatabase(db);
  return { ok: 1 };
};

/** `listCollections`: the database's collections as a cursor, filtered (e.g. by `name`) with the regular matcher. */
export const listCollections: CommandHandler = (cmd, db, ctx) => {
  checkFields(cmd, ['filter', 'nameOnly', 'authorizedCollections', 'cursor', 'includePendingDrops']);
  const matches = compileFilter(optionalDocument(cmd, 'filter'));
  const nameOnly = cmd['nameOnly'] === true;
  const docs: Doc[] = ctx.catalog
    .list(db)
    .map((c): Doc =>
      nameOnly
        ? { name: c.name, type: 'collection' }
        : {
            name: c.name,
            type: 'collection',
            options: {},
            info: { readOnly: false, uuid: c.uuid },
            idIndex: ID_INDEX.description,
          },
    )
    .filter(matches);
  const ns = `${db}.$cmd.listCollections`;
  return cursorReply(ns, ctx.cursors.open(ns, docs, cursorBatchSize(cmd)));
};
