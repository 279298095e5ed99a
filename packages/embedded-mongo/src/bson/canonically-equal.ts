import { canonicalKey } from './canonical-key';
import { isPlainObject, typeAlias } from './bson-types';

/** The fields of an embedded document, in order (a BSON value class other than a plain object gives its JSON form, as in canonicalKey). */
function entriesOf(value: unknown): [string, unknown][] {
  const doc = isPlainObject(value) ? value : (value as { toJSON: () => Record<string, unknown> }).toJSON();
  return Object.entries(doc);
}

/**
 * Exactly `canonicalKey(a) === canonicalKey(b)`, without building either key: it walks both
 * values together and stops at the first difference, and a subdocument shared by both (an update
 * copies the fields it leaves alone) is equal at once. An update asks this of the whole document
 * before and after, to tell a no-op (`nModified: 0`) from a change, so building two keys of every
 * updated document was most of a small update's cost.
 */
export function canonicallyEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // The common leaves, without building their keys: numbers (NaN equals NaN, -0 equals 0, as
  // their keys do), dates by their time, and null with missing.
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (a instanceof Date && b instanceof Date) {
    const x = a.getTime();
    const y = b.getTime();
    return x === y || (Number.isNaN(x) && Number.isNaN(y));
  }
  if (a == null && b == null) return true;
  if (typeof a === 'string' && typeof b === 'string') return false;
  if (isPlainObject(a) && isPlainObject(b)) {
    const keysA = Object.keys(a);
    const keysB = Object.keys(b);
    if (keysA.length !== keysB.length) return false;
    for (let i = 0; i < keysA.length; i++) {
      const key = keysA[i] as string;
      if (key !== keysB[i] || !canonicallyEqual(a[key], b[key])) return false;
    }
    return true;
  }
  const aliasA = typeAlias(a);
  const aliasB = typeAlias(b);
  if (aliasA === 'array' || aliasB === 'array') {
    if (aliasA !== aliasB) return false;
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!canonicallyEqual(x[i], y[i])) return false;
    return true;
  }
  if (aliasA === 'object' || aliasB === 'object') {
    if (aliasA !== aliasB) return false;
    const x = entriesOf(a);
    const y = entriesOf(b);
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) {
      const [keyA, valueA] = x[i] as [string, unknown];
      const [keyB, valueB] = y[i] as [string, unknown];
      if (keyA !== keyB || !canonicallyEqual(valueA, valueB)) return false;
    }
    return true;
  }
  const textA = aliasA === 'string' || aliasA === 'symbol';
  const textB = aliasB === 'string' || aliasB === 'symbol';
  if (textA || textB) return textA && textB && String(a) === String(b);
  // Numbers across int/double/long/decimal, null and missing, and the rarer types: their keys are short.
  return canonicalKey(a) === canonicalKey(b);
}
