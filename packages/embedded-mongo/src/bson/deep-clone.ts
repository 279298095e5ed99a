import { isPlainObject, type Doc } from './bson-types';

/**
 * Copies documents and arrays (and Dates, which are mutable) so that updates build new
 * documents instead of mutating stored ones; open cursors keep the version they read, and
 * a failed update leaves the stored document untouched. BSON value classes are immutable
 * and shared.
 */
export function deepClone<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => deepClone(v)) as T;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (isPlainObject(value)) {
    const copy: Doc = {};
    for (const [k, v] of Object.entries(value)) copy[k] = deepClone(v);
    return copy as T;
  }
  return value;
}
