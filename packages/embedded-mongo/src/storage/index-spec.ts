import { isNumeric, isPlainObject, type Doc } from '../bson/bson-types';
import { canonicalKey } from '../bson/canonical-key';
import { formatDocument } from '../bson/format-value';
import { CommandError, notImplemented } from '../errors/command-error';
import { isOperatorObject } from '../query/query-matcher';
import { splitPath } from '../query/field-path';

/** One field of an index key pattern. */
interface IndexField {
  readonly path: string;
  readonly parts: readonly string[];
}

/**
 * A validated index definition. Only what changes behaviour is kept (uniqueness, sparseness,
 * partial filter, TTL); `description` is what `listIndexes` returns.
 */
export interface IndexSpec {
  readonly name: string;
  readonly key: Doc;
  readonly fields: readonly IndexField[];
  readonly unique: boolean;
  readonly sparse: boolean;
  readonly expireAfterSeconds: number | undefined;
  readonly partialFilterExpression: Doc | undefined;
  readonly description: Doc;
}

const IGNORED = new Set(['background', 'ns', 'v']);
const NOT_IMPLEMENTED = new Set([
  'collation',
  'weights',
  'default_language',
  'language_override',
  'textIndexVersion',
  '2dsphereIndexVersion',
  'bits',
  'min',
  'max',
  'bucketSize',
  'wildcardProjection',
  'storageEngine',
  'clustered',
  'prepareUnique',
  'columnstoreProjection',
]);
const INDEX_PLUGINS = new Set(['text', 'hashed', '2d', '2dsphere', 'geoHaystack', 'columnstore']);
const PARTIAL_OPERATORS = new Set(['$eq', '$exists', '$gt', '$gte', '$lt', '$lte', '$type', '$in']);

/** The `_id_` index every collection has. */
export const ID_INDEX: IndexSpec = {
  name: '_id_',
  key: { _id: 1 },
  fields: [{ path: '_id', parts: ['_id'] }],
  unique: true,
  sparse: false,
  expireAfterSeconds: undefined,
  partialFilterExpression: undefined,
  description: { v: 2, key: { _id: 1 }, name: '_id_' },
};

function validatePartialFilter(filter: Doc, top: boolean): void {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' || (key === '$or' && top)) {
      if (!Array.isArray(value))
        throw new CommandError('CannotCreateIndex', `${key} must be an array in a partial index filter`);
      for (const clause of value) if (isPlainObject(clause)) validatePartialFilter(clause, false);
      continue;
    }
    const unsupported =
      key.startsWith('$') ||
      (isOperatorObject(value) &&
        Object.entries(value).some(
          ([op, arg]) => !PARTIAL_OPERATORS.has(op) || (op === '$exists' && arg !== true),
        ));
    if (unsupported) {
      throw new CommandError(
        'CannotCreateIndex',
        `Expression not supported in partial index: ${formatDocument({ [key]: value })}`,
      );
    }
  }
}

function parseKey(key: unknown): IndexField[] {
  if (!isPlainObject(key) || Object.keys(key).length === 0) {
    throw new CommandError('CannotCreateIndex', 'Index keys cannot be an empty field.');
  }
  return Object.entries(key).map(([path, direction]) => {
    if (typeof direction === 'string') {
      if (INDEX_PLUGINS.has(direction)) throw notImplemented(`The '${direction}' index type`);
      throw new CommandError('CannotCreateIndex', `Unknown index plugin '${direction}'`);
    }
    if (!isNumeric(direction) || Number(direction) === 0) {
      throw new CommandError(
        'CannotCreateIndex',
        `Values in the index key pattern can only be of numerical or string type (got ${formatDocument({ [path]: direction })})`,
      );
    }
    if (path.includes('$**')) throw notImplemented('Wildcard indexes');
    return { path, parts: splitPath(path) };
  });
}

/**
 * Validates one `createIndexes` entry as MongoDB does: `name` and `key` required, directions
 * 1/-1, TTL only on a single non-`_id` field, partial filters with the operators MongoDB allows
 * there; unknown fields are code 197, text/geo/hashed/wildcard indexes and collations are
 * refused as not implemented.
 */
export function parseIndexSpec(raw: unknown): IndexSpec {
  if (!isPlainObject(raw))
    throw new CommandError('TypeMismatch', 'Each index specification must be an object');
  for (const field of Object.keys(raw)) {
    if (NOT_IMPLEMENTED.has(field)) throw notImplemented(`The index option '${field}'`);
    const known =
      IGNORED.has(field) ||
      ['key', 'name', 'unique', 'sparse', 'expireAfterSeconds', 'partialFilterExpression', 'hidden'].includes(
        field,
      );
    if (!known) {
      throw new CommandError(
        'InvalidIndexSpecificationOption',
        `The field '${field}' is not valid for an index specification. Specification: ${formatDocument(raw)}`,
      );
    }
  }
  if (typeof raw['name'] !== 'string' || raw['name'] === '') {
    throw new CommandError(
      'FailedToParse',
      `The 'name' field is a required property of an index specification: ${formatDocument(raw)}`,
    );
  }
  if (raw['hidden'] === true) throw notImplemented('Hidden indexes');
  const name = raw['name'];
  const fields = parseKey(raw['key']);
  const key = raw['key'] as Doc;
  const unique = raw['unique'] === true || (isNumeric(raw['unique']) && Number(raw['unique']) !== 0);
  const sparse = raw['sparse'] === true || (isNumeric(raw['sparse']) && Number(raw['sparse']) !== 0);
  let expireAfterSeconds: number | undefined;
  if (raw['expireAfterSeconds'] !== undefined) {
    const ttl = Number(raw['expireAfterSeconds']);
    if (!isNumeric(raw['expireAfterSeconds']) || !Number.isFinite(ttl) || ttl < 0 || ttl > 2147483647) {
      throw new CommandError(
        'CannotCreateIndex',
        "TTL index 'expireAfterSeconds' option must be within an acceptable range, try a lower number",
      );
    }
    if (fields.length !== 1)
      throw new CommandError(
        'CannotCreateIndex',
        'TTL indexes are single-field indexes, compound indexes do not support TTL.',
      );
    if (fields[0]?.path === '_id')
      throw new CommandError(
        'InvalidIndexSpecificationOption',
        "The field 'expireAfterSeconds' is not valid for an _id index specification.",
      );
    expireAfterSeconds = Math.trunc(ttl);
  }
  let partialFilterExpression: Doc | undefined;
  if (raw['partialFilterExpression'] !== undefined) {
    if (!isPlainObject(raw['partialFilterExpression']))
      throw new CommandError('TypeMismatch', 'partialFilterExpression must be an object');
    partialFilterExpression = raw['partialFilterExpression'];
    validatePartialFilter(partialFilterExpression, true);
  }
  if (sparse && partialFilterExpression)
    throw new CommandError('CannotCreateIndex', 'cannot mix "partialFilterExpression" and "sparse" options');
  const description: Doc = { v: 2, key, name };
  if (unique) description['unique'] = true;
  if (sparse) description['sparse'] = true;
  if (expireAfterSeconds !== undefined) description['expireAfterSeconds'] = expireAfterSeconds;
  if (partialFilterExpression) description['partialFilterExpression'] = partialFilterExpression;
  return { name, key, fields, unique, sparse, expireAfterSeconds, partialFilterExpression, description };
}

/** True when two specs have the same key pattern (field order and directions). */
export function sameKey(a: IndexSpec, b: IndexSpec): boolean {
  return canonicalKey(a.key) === canonicalKey(b.key);
}

/** True when two specs with the same key also agree on every option. */
export function sameOptions(a: IndexSpec, b: IndexSpec): boolean {
  return (
    a.unique === b.unique &&
    a.sparse === b.sparse &&
    a.expireAfterSeconds === b.expireAfterSeconds &&
    canonicalKey(a.partialFilterExpression) === canonicalKey(b.partialFilterExpression)
  );
}
