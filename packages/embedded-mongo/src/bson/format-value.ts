import type { ObjectId } from 'bson';
import { isPlainObject, toNumber, typeAlias } from './bson-types';

/**
 * Renders a value the way MongoDB prints it inside error messages (`{ orderId: "a" }`,
 * `ObjectId('…')`, `new Date(…)`), so messages such as E11000's `dup key: { … }` read the same
 * as from a real server.
 */
export function formatValue(value: unknown): string {
  switch (typeAlias(value)) {
    case 'missing':
    case 'null':
      return 'null';
    case 'string':
      return JSON.stringify(value);
    case 'double':
    case 'int':
    case 'decimal':
      return String(toNumber(value));
    case 'long':
      return String(value);
    case 'objectId':
      return `ObjectId('${(value as ObjectId).toHexString()}')`;
    case 'date':
      return `new Date(${(value as Date).getTime()})`;
    case 'bool':
      return String(value);
    case 'array':
      return `[ ${(value as unknown[]).map(formatValue).join(', ')} ]`;
    case 'object':
      return isPlainObject(value) ? formatDocument(value) : String(value);
    default:
      return String(value);
  }
}

/** Renders a document as `{ a: 1, b: "x" }` (MongoDB's message style); `{}` when empty. */
export function formatDocument(doc: Record<string, unknown>): string {
  const entries = Object.entries(doc);
  if (entries.length === 0) return '{}';
  return `{ ${entries.map(([k, v]) => `${k}: ${formatValue(v)}`).join(', ')} }`;
}
