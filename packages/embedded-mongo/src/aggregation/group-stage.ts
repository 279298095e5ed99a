import { isNumeric, isPlainObject, type Doc } from '../bson/bson-types';
import { canonicalKey } from '../bson/canonical-key';
import { CommandError, notImplemented } from '../errors/command-error';
import { isArrayIndex, splitPath } from '../query/field-path';
import { addNumbers } from '../update/bson-arithmetic';

const KNOWN_ACCUMULATORS = new Set([
  '$avg',
  '$min',
  '$max',
  '$first',
  '$last',
  '$push',
  '$addToSet',
  '$count',
  '$stdDevPop',
  '$stdDevSamp',
  '$mergeObjects',
  '$top',
  '$bottom',
  '$topN',
  '$bottomN',
  '$firstN',
  '$lastN',
  '$maxN',
  '$minN',
  '$median',
  '$percentile',
]);

/** A `$field.path` expression's value as aggregation reads it: arrays of sub-documents map to arrays of values. */
function fieldPathValue(value: unknown, parts: readonly string[]): unknown {
  let current = value;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    if (Array.isArray(current)) {
      const rest = parts.slice(i);
      return current
        .filter((e) => isPlainObject(e) || Array.isArray(e))
        .map((e) => fieldPathValue(e, rest))
        .filter((v) => v !== undefined);
    }
    if (!isPlainObject(current)) return undefined;
    current = current[part];
    if (isArrayIndex(part) && current === undefined) return undefined;
  }
  return current;
}

/** An operand: a constant, or a `'$path'` field reference. */
function compileOperand(operand: unknown, where: string): (doc: Doc) => unknown {
  if (typeof operand === 'string' && operand.startsWith('$')) {
    if (operand.startsWith('$$')) throw notImplemented(`Aggregation variables (${operand})`);
    const parts = splitPath(operand.slice(1));
    return (doc) => fieldPathValue(doc, parts);
  }
  if (isPlainObject(operand) || Array.isArray(operand))
    throw notImplemented(`Expressions in ${where} (${JSON.stringify(operand)})`);
  return () => operand;
}

/**
 * `$group` with `_id` a constant or `'$field'` and `$sum` accumulators (of a constant or a
 * `'$field'`) — the shape `countDocuments` sends. Missing group keys group as null; non-numeric
 * values add nothing to a sum, as in MongoDB. Other accumulators are refused by name.
 */
export function compileGroup(spec: unknown): (docs: Doc[]) => Doc[] {
  if (!isPlainObject(spec))
    throw new CommandError('Location15955', 'a group specification must be an object');
  if (!('_id' in spec)) throw new CommandError('Location15955', 'a group specification must include an _id');
  const groupKey = compileOperand(spec['_id'], '$group _id');
  const sums = Object.entries(spec)
    .filter(([field]) => field !== '_id')
    .map(([field, acc]) => {
      if (field.includes('.'))
        throw new CommandError('Location40415', `The field name '${field}' cannot contain '.'`);
      if (!isPlainObject(acc) || Object.keys(acc).length !== 1) {
        throw new CommandError('Location40415', `The field '${field}' must be an accumulator object`);
      }
      const [op, operand] = Object.entries(acc)[0] as [string, unknown];
      if (op !== '$sum') {
        if (KNOWN_ACCUMULATORS.has(op)) throw notImplemented(`The $group accumulator ${op}`);
        throw new CommandError('Location15952', `unknown group operator '${op}'`);
      }
      return { field, value: compileOperand(operand, '$sum') };
    });
  return (docs) => {
    const groups = new Map<string, Doc>();
    for (const doc of docs) {
      const raw = groupKey(doc);
      const id = raw === undefined ? null : raw;
      const key = canonicalKey(id);
      let group = groups.get(key);
      if (group === undefined) {
        group = { _id: id };
        for (const s of sums) group[s.field] = 0;
        groups.set(key, group);
      }
      for (const s of sums) {
        const v = s.value(doc);
        if (isNumeric(v)) group[s.field] = addNumbers(group[s.field], v);
      }
    }
    return [...groups.values()];
  };
}
