import { compareValues, valuesEqual } from '../bson/bson-order';
import { isPlainObject, isNumeric, typeAlias, typeRank, type Doc } from '../bson/bson-types';
import { canonicalKey } from '../bson/canonical-key';
import { CommandError, notImplemented } from '../errors/command-error';
import { leafValues, splitPath } from './field-path';
import { typeMatcher } from './type-matcher';

/** A compiled filter: true when the document matches. */
export type DocPredicate = (doc: Doc) => boolean;
type ValuePredicate = (value: unknown) => boolean;

const UNSUPPORTED_TOP_LEVEL = new Set([
  '$where',
  '$expr',
  '$text',
  '$jsonSchema',
  '$sampleRate',
  '$alwaysTrue',
  '$alwaysFalse',
]);
const UNSUPPORTED_FIELD_OPERATORS = new Set([
  '$regex',
  '$options',
  '$all',
  '$mod',
  '$bitsAllSet',
  '$bitsAnySet',
  '$bitsAllClear',
  '$bitsAnyClear',
  '$geoWithin',
  '$geoIntersects',
  '$near',
  '$nearSphere',
  '$within',
  '$jsonSchema',
]);

function isRegex(value: unknown): boolean {
  return value instanceof RegExp || typeAlias(value) === 'regex';
}

/** True for `{ $gt: 1, ... }`: a sub-document whose first key is an operator. */
export function isOperatorObject(value: unknown): value is Doc {
  if (!isPlainObject(value)) return false;
  const first = Object.keys(value)[0];
  return first !== undefined && first.startsWith('$');
}

/** Equality as MongoDB matches it: the value itself, or any element of an array value. */
function equalsPredicate(expected: unknown): ValuePredicate {
  if (isRegex(expected)) throw notImplemented('Regular expression matching');
  return (v) => valuesEqual(v, expected) || (Array.isArray(v) && v.some((e) => valuesEqual(e, expected)));
}

function inPredicate(op: string, arg: unknown): ValuePredicate {
  if (!Array.isArray(arg)) throw new CommandError('BadValue', `${op} needs an array`);
  for (const item of arg) {
    if (isRegex(item)) throw notImplemented(`Regular expressions inside ${op}`);
    if (isOperatorObject(item)) throw new CommandError('BadValue', `cannot nest $ under ${op}`);
  }
  const keys = new Set(arg.map(canonicalKey));
  return (v) => keys.has(canonicalKey(v)) || (Array.isArray(v) && v.some((e) => keys.has(canonicalKey(e))));
}

/** Range operators compare only values of the same canonical type (a number never matches `$gt: 'a'`). */
function rangePredicate(op: string, arg: unknown): ValuePredicate {
  if (isRegex(arg)) throw notImplemented(`Regular expressions in ${op}`);
  if (arg === null) return op === '$gte' || op === '$lte' ? equalsPredicate(null) : () => false;
  const accept: (c: number) => boolean =
    op === '$gt' ? (c) => c > 0 : op === '$gte' ? (c) => c >= 0 : op === '$lt' ? (c) => c < 0 : (c) => c <= 0;
  const rank = typeRank(arg);
  const one = (v: unknown): boolean => typeRank(v) === rank && accept(compareValues(v, arg));
  return (v) => one(v) || (Array.isArray(v) && v.some(one));
}

function sizePredicate(arg: unknown): ValuePredicate {
  if (!isNumeric(arg) || !Number.isInteger(Number(arg)))
    throw new CommandError('BadValue', '$size needs a number');
  const n = Number(arg);
  if (n < 0) throw new CommandError('BadValue', '$size may not be negative');
  return (v) => Array.isArray(v) && v.length === n;
}

function elemMatchPredicate(arg: unknown): ValuePredicate {
  if (!isPlainObject(arg)) throw new CommandError('BadValue', '$elemMatch needs an Object');
  const first = Object.keys(arg)[0];
  const valueMode = first !== undefined && first.startsWith('$') && !['$and', '$or', '$nor'].includes(first);
  if (valueMode) {
    // `{ $elemMatch: { $gt: 1, $lt: 5 } }`: every operator applies to the same element.
    const element = compileField('e', arg);
    return (v) => Array.isArray(v) && v.some((e) => element({ e }));
  }
  const sub = compileFilter(arg);
  return (v) => Array.isArray(v) && v.some((e) => isPlainObject(e) && sub(e));
}

function anyValue(parts: readonly string[], pred: ValuePredicate): DocPredicate {
  return (doc) => leafValues(doc, parts).some(pred);
}

function noValue(parts: readonly string[], pred: ValuePredicate): DocPredicate {
  return (doc) => !leafValues(doc, parts).some(pred);
}

function compileOperator(path: string, parts: readonly string[], op: string, arg: unknown): DocPredicate {
  switch (op) {
    case '$eq':
      return anyValue(parts, equalsPredicate(arg));
    case '$ne':
      return noValue(parts, equalsPredicate(arg));
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return anyValue(parts, rangePredicate(op, arg));
    case '$in':
      return anyValue(parts, inPredicate(op, arg));
    case '$nin':
      return noValue(parts, inPredicate(op, arg));
    case '$exists':
      return arg ? anyValue(parts, (v) => v !== undefined) : noValue(parts, (v) => v !== undefined);
    case '$size':
      return anyValue(parts, sizePredicate(arg));
    case '$type': {
      const matches = typeMatcher(arg);
      return anyValue(parts, (v) => matches(v) || (Array.isArray(v) && v.some(matches)));
    }
    case '$elemMatch':
      return anyValue(parts, elemMatchPredicate(arg));
    case '$not': {
      if (isRegex(arg)) throw notImplemented('$not with a regular expression');
      if (!isPlainObject(arg)) throw new CommandError('BadValue', '$not needs a regex or a document');
      if (Object.keys(arg).length === 0) throw new CommandError('BadValue', '$not cannot be empty');
      if (!isOperatorObject(arg))
        throw new CommandError('BadValue', `unknown operator: ${Object.keys(arg)[0] ?? ''}`);
      const inner = compileField(path, arg);
      return (doc) => !inner(doc);
    }
    default:
      if (UNSUPPORTED_FIELD_OPERATORS.has(op)) throw notImplemented(`The query operator ${op}`);
      throw new CommandError('BadValue', `unknown operator: ${op}`);
  }
}

function compileField(path: string, spec: unknown): DocPredicate {
  const parts = splitPath(path);
  if (!isOperatorObject(spec)) return anyValue(parts, equalsPredicate(spec));
  const preds = Object.entries(spec).map(([op, arg]) => {
    if (!op.startsWith('$')) throw new CommandError('BadValue', `unknown operator: ${op}`);
    return compileOperator(path, parts, op, arg);
  });
  return (doc) => preds.every((p) => p(doc));
}

function compileLogical(op: string, arg: unknown): DocPredicate {
  if (!Array.isArray(arg) || arg.length === 0)
    throw new CommandError('BadValue', `${op} must be a nonempty array`);
  const subs = arg.map((clause: unknown) => {
    if (!isPlainObject(clause))
      throw new CommandError('BadValue', '$or/$and/$nor entries need to be full objects');
    return compileFilter(clause);
  });
  if (op === '$and') return (doc) => subs.every((p) => p(doc));
  if (op === '$or') return (doc) => subs.some((p) => p(doc));
  return (doc) => !subs.some((p) => p(doc));
}

/**
 * Compiles a MongoDB query filter into a predicate, validating it up front so that a bad filter
 * fails even on an empty collection (as in MongoDB). Supports implicit equality, `$eq $ne $gt
 * $gte $lt $lte $in $nin $exists $and $or $nor $not $elemMatch $size $type` and dotted paths
 * through sub-documents and arrays. Regexes, `$where`, `$expr`, `$text` and the rest are refused
 * with a BadValue that says so.
 */
export function compileFilter(filter: unknown): DocPredicate {
  if (filter === undefined || filter === null) return () => true;
  if (!isPlainObject(filter))
    throw new CommandError('TypeMismatch', `a query filter must be an object (got ${typeAlias(filter)})`);
  const preds = Object.entries(filter).map(([key, value]): DocPredicate => {
    if (!key.startsWith('$')) return compileField(key, value);
    if (key === '$and' || key === '$or' || key === '$nor') return compileLogical(key, value);
    if (key === '$comment') return () => true;
    if (UNSUPPORTED_TOP_LEVEL.has(key)) throw notImplemented(`The query operator ${key}`);
    throw new CommandError(
      'BadValue',
      `unknown top level operator: ${key}. If you have a field name that starts with a '$' symbol, consider using $getField or $setField.`,
    );
  });
  return (doc) => preds.every((p) => p(doc));
}
