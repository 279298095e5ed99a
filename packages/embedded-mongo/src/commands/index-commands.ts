import { isPlainObject, type Doc } from '../bson/bson-types';
import { canonicalKey } from '../bson/canonical-key';
import { formatDocument } from '../bson/format-value';
import { CommandError } from '../errors/command-error';
import type { CollectionStore } from '../storage/collection-store';
import { validateCollectionName } from '../storage/catalog';
import { ID_INDEX, parseIndexSpec, sameKey, sameOptions, type IndexSpec } from '../storage/index-spec';
import type { CommandHandler } from './command-context';
import { checkFields, cursorBatchSize, cursorReply } from './command-fields';

/** True when the index already exists exactly; throws MongoDB's 85/86 conflicts otherwise. */
function alreadyExists(collection: CollectionStore, spec: IndexSpec): boolean {
  const byName = collection.indexes.get(spec.name);
  const describe = (s: IndexSpec): string => formatDocument(s.description);
  if (byName !== undefined) {
    if (!sameKey(byName, spec)) {
      throw new CommandError(
        'IndexKeySpecsConflict',
        `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: ${describe(spec)}, existing index: ${describe(byName)}`,
      );
    }
    if (byName !== ID_INDEX && !sameOptions(byName, spec)) {
      throw new CommandError(
        'IndexOptionsConflict',
        `An equivalent index already exists with the same name but different options. Requested index: ${describe(spec)}, existing index: ${describe(byName)}`,
      );
    }
    return true;
  }
  const byKey = collection.indexes.list().find((s) => sameKey(s, spec));
  if (byKey !== undefined) {
    throw new CommandError(
      'IndexOptionsConflict',
      `Index already exists with a different name: ${byKey.name}`,
    );
  }
  return false;
}

/**
 * `createIndexes`: builds unique, TTL, sparse and partial indexes (plain indexes are recorded
 * only). Requesting an existing index again is a no-op (`note: 'all indexes already exist'`);
 * a name or key clash with different definitions is code 85/86; a unique index over duplicate
 * data fails with 11000 and builds nothing.
 */
export const createIndexes: CommandHandler = (cmd, db, ctx) => {
  checkFields(cmd, ['indexes', 'commitQuorum', 'ignoreUnknownIndexOptions']);
  const name = validateCollectionName(db, cmd['createIndexes']);
  const raw = cmd['indexes'];
  if (!Array.isArray(raw) || raw.length === 0)
    throw new CommandError('BadValue', 'Must specify at least one index to create');
  const specs = raw.map(parseIndexSpec);
  const { collection, created } = ctx.catalog.ensure(db, name);
  const before = collection.indexes.list().length;
  const toBuild = specs.filter((spec) => !alreadyExists(collection, spec));
  const built: string[] = [];
  try {
    for (const spec of toBuild) {
      collection.createIndex(spec);
      built.push(spec.name);
    }
  } catch (error) {
    for (const done of built) collection.dropIndex(done);
    throw error;
  }
  const after = collection.indexes.list().length;
  if (after === before)
    return { numIndexesBefore: before, numIndexesAfter: after, note: 'all indexes already exist', ok: 1 };
  return { numIndexesBefore: before, numIndexesAfter: after, createdCollectionAutomatically: created, ok: 1 };
};

/** `listIndexes`: the index definitions, as a cursor; NamespaceNotFound (26) for a missing collection. */
export const listIndexes: CommandHandler = (cmd, db, ctx) => {
  checkFields(cmd, ['cursor', 'includeBuildUUIDs', 'includeIndexBuildInfo']);
  const name = validateCollectionName(db, cmd['listIndexes']);
  const collection = ctx.catalog.get(db, name);
  if (collection === undefined)
    throw new CommandError('NamespaceNotFound', `ns does not exist: ${db}.${name}`);
  const ns = `${db}.$cmd.listIndexes.${name}`;
  const docs: Doc[] = collection.indexes.list().map((s) => s.description);
  return cursorReply(ns, ctx.cursors.open(ns, docs, cursorBatchSize(cmd)));
};

function resolveIndexNames(collection: CollectionStore, index: unknown): string[] {
  if (index === '*')
    return collection.indexes
      .list()
      .filter((s) => s !== ID_INDEX)
      .map((s) => s.name);
  if (typeof index === 'string') return [index];
  if (Array.isArray(index) && index.every((i) => typeof i === 'string')) return index as string[];
  if (isPlainObject(index)) {
    const match = collection.indexes.list().find((s) => canonicalKey(s.key) === canonicalKey(index));
    if (match === undefined)
      throw new CommandError('IndexNotFound', `can't find index with key: ${formatDocument(index)}`);
    return [match.name];
  }
  throw new CommandError(
    'TypeMismatch',
    "BSON field 'dropIndexes.index' must be a string, an array of strings or an object",
  );
}

/** `dropIndexes`: by name, names, key pattern or `'*'`; `_id_` cannot be dropped (code 72). */
export const dropIndexes: CommandHandler = (cmd, db, ctx) => {
  checkFields(cmd, ['index']);
  const name = validateCollectionName(db, cmd['dropIndexes']);
  const collection = ctx.catalog.get(db, name);
  if (collection === undefined) throw new CommandError('NamespaceNotFound', `ns not found ${db}.${name}`);
  const nIndexesWas = collection.indexes.list().length;
  const names = resolveIndexNames(collection, cmd['index']);
  for (const indexName of names) {
    if (indexName === ID_INDEX.name) throw new CommandError('InvalidOptions', 'cannot drop _id index');
    if (collection.indexes.get(indexName) === undefined) {
      throw new CommandError('IndexNotFound', `index not found with name [${indexName}]`);
    }
  }
  for (const indexName of names) collection.dropIndex(indexName);
  const reply: Doc = { nIndexesWas };
  if (cmd['index'] === '*') reply['msg'] = 'non-_id indexes dropped for collection';
  return { ...reply, ok: 1 };
};
