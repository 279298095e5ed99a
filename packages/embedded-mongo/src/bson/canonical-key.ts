import type { Binary, Long, ObjectId, Timestamp } from 'bson';
import { isPlainObject, toNumber, typeAlias } from './bson-types';

function numberKey(value: unknown): string {
  if (typeAlias(value) === 'long') {
    const long = value as Long;
    const n = long.toNumber();
    // Longs beyond 2^53 keep their exact digits; smaller ones share keys with equal doubles.
    return Number.isSafeInteger(n) ? `n${n}` : `n${long.toString()}`;
  }
  const n = toNumber(value);
  return Object.is(n, -0) ? 'n0' : `n${n}`;
}

/**
 * A string that two BSON values share exactly when MongoDB considers them equal (numbers across
 * int/double/long, null and missing alike, documents field by field in order). Unique indexes,
 * the `_id` map and `distinct` key their maps with it.
 */
export function canonicalKey(value: unknown): string {
  const alias = typeAlias(value);
  switch (alias) {
    case 'missing':
    case 'null':
      return 'z';
    case 'double':
    case 'int':
    case 'long':
    case 'decimal':
      return numberKey(value);
    case 'string':
    case 'symbol':
      return `s${JSON.stringify(String(value))}`;
    case 'bool':
      return value === true ? 'bt' : 'bf';
    case 'date':
      return `d${(value as Date).getTime()}`;
    case 'objectId':
      return `o${(value as ObjectId).toHexString()}`;
    case 'array':
      return `[${(value as unknown[]).map(canonicalKey).join(',')}]`;
    case 'object': {
      const doc = isPlainObject(value)
        ? value
        : (value as { toJSON: () => Record<string, unknown> }).toJSON();
      return `{${Object.entries(doc)
        .map(([k, v]) => `${JSON.stringify(k)}:${canonicalKey(v)}`)
        .join(',')}}`;
    }
    case 'binData': {
      const bin = value as Binary;
      const bytes = value instanceof Uint8Array ? value : bin.buffer;
      return `x${bin.sub_type ?? 0}:${Buffer.from(bytes).toString('base64')}`;
    }
    case 'timestamp': {
      const ts = value as Timestamp;
      return `t${ts.t}:${ts.i}`;
    }
    default:
      return `${alias}:${String(value)}`;
  }
}
