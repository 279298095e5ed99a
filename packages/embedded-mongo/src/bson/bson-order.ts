import type { Binary, Long, ObjectId, Timestamp } from 'bson';
import { isPlainObject, toNumber, typeAlias, typeRank } from './bson-types';

function sign(n: number): -1 | 0 | 1 {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

function compareNumbers(a: unknown, b: unknown): -1 | 0 | 1 {
  if (typeAlias(a) === 'long' && typeAlias(b) === 'long') return sign((a as Long).compare(b as Long));
  const x = toNumber(a);
  const y = toNumber(b);
  // MongoDB orders NaN below every other number and equal to itself.
  if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : -1;
  if (Number.isNaN(y)) return 1;
  return sign(x - y);
}

function compareStrings(a: string, b: string): -1 | 0 | 1 {
  if (a === b) return 0;
  // MongoDB compares UTF-8 bytes; UTF-16 code-unit order differs only around surrogates.
  if (/[\ud800-\udfff]/.test(a) || /[\ud800-\udfff]/.test(b))
    return sign(Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return a < b ? -1 : 1;
}

function compareBytes(a: Uint8Array, b: Uint8Array): -1 | 0 | 1 {
  return sign(
    Buffer.compare(
      Buffer.from(a.buffer, a.byteOffset, a.byteLength),
      Buffer.from(b.buffer, b.byteOffset, b.byteLength),
    ),
  );
}

function asEntries(value: unknown): [string, unknown][] {
  if (Array.isArray(value)) return value.map((v, i) => [String(i), v]);
  if (isPlainObject(value)) return Object.entries(value);
  const json = (value as { toJSON?: () => unknown }).toJSON?.();
  return isPlainObject(json) ? Object.entries(json) : [];
}

/** Documents and arrays compare field by field (type, then name, then value), then by length. */
function compareEntries(a: unknown, b: unknown): -1 | 0 | 1 {
  const x = asEntries(a);
  const y = asEntries(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const [ka, va] = x[i] as [string, unknown];
    const [kb, vb] = y[i] as [string, unknown];
    const byType = sign(typeRank(va) - typeRank(vb));
    if (byType !== 0) return byType;
    const byName = compareStrings(ka, kb);
    if (byName !== 0) return byName;
    const byValue = compareValues(va, vb);
    if (byValue !== 0) return byValue;
  }
  return sign(x.length - y.length);
}

/**
 * Compares two BSON values in MongoDB's total order: first by canonical type rank (MinKey, null,
 * numbers, strings, objects, arrays, binary, ObjectId, booleans, dates, timestamps, regexes,
 * MaxKey), then by value within the type. Numbers compare across double/int/long. Sorting,
 * equality, `$min`/`$max` and range operators all rest on this one function.
 */
export function compareValues(a: unknown, b: unknown): -1 | 0 | 1 {
  const byRank = sign(typeRank(a) - typeRank(b));
  if (byRank !== 0) return byRank;
  const alias = typeAlias(a);
  switch (typeRank(a)) {
    case -1:
    case 5:
    case 127:
      return 0;
    case 10:
      return compareNumbers(a, b);
    case 15:
      return compareStrings(String(a), String(b));
    case 20:
    case 25:
      return compareEntries(a, b);
    case 30: {
      const x = alias === 'binData' && a instanceof Uint8Array ? a : (a as Binary).buffer;
      const y = b instanceof Uint8Array ? b : (b as Binary).buffer;
      if (x.length !== y.length) return sign(x.length - y.length);
      const bySubtype = sign(((a as Binary).sub_type ?? 0) - ((b as Binary).sub_type ?? 0));
      return bySubtype !== 0 ? bySubtype : compareBytes(x, y);
    }
    case 35:
      return compareStrings((a as ObjectId).toHexString(), (b as ObjectId).toHexString());
    case 40:
      return sign(Number(a) - Number(b));
    case 45:
      return sign((a as Date).getTime() - (b as Date).getTime());
    case 47: {
      const x = a as Timestamp;
      const y = b as Timestamp;
      return x.t !== y.t ? sign(x.t - y.t) : sign(x.i - y.i);
    }
    default:
      return compareStrings(String(a), String(b));
  }
}

/** MongoDB equality: same canonical type and value (1, 1.0 and Long(1) are equal; field order matters in documents). */
export function valuesEqual(a: unknown, b: unknown): boolean {
  return compareValues(a, b) === 0;
}
