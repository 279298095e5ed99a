import { Long } from 'bson';
import { isNumeric, isPlainObject, toNumber, typeAlias, type Doc } from '../bson/bson-types';
import { CommandError, notImplemented } from '../errors/command-error';
import type { Batch } from '../cursors/cursor-manager';

/** Fields the driver adds to every command; they carry no meaning for a standalone in-memory server. */
const GENERIC_FIELDS = new Set([
  '$db',
  'lsid',
  '$clusterTime',
  '$readPreference',
  'txnNumber',
  'autocommit',
  'writeConcern',
  'readConcern',
  'apiVersion',
  'apiStrict',
  'apiDeprecationErrors',
  'comment',
  'maxTimeMS',
  '$client',
]);

/**
 * Checks a command's fields the way MongoDB's IDL parser does: a field MongoDB does not know is
 * code 40415 ("BSON field 'find.x' is an unknown field."); a field MongoDB knows but this server
 * does not implement is refused by name instead of being silently ignored.
 */
export function checkFields(cmd: Doc, allowed: readonly string[], unsupported: readonly string[] = []): void {
  const name = Object.keys(cmd)[0] ?? '';
  for (const field of Object.keys(cmd)) {
    if (field === name || GENERIC_FIELDS.has(field) || allowed.includes(field)) continue;
    if (unsupported.includes(field)) throw notImplemented(`The '${field}' option of ${name}`);
    throw new CommandError('Location40415', `BSON field '${name}.${field}' is an unknown field.`);
  }
}

/** Reads an optional non-negative integer option (skip, limit, batchSize), rejecting other types. */
export function optionalInteger(cmd: Doc, field: string): number | undefined {
  const value = cmd[field];
  if (value === undefined || value === null) return undefined;
  if (!isNumeric(value)) {
    throw new CommandError(
      'TypeMismatch',
      `BSON field '${field}' is the wrong type '${typeAlias(value)}', expected types '[long, int, decimal, double]'`,
    );
  }
  return Math.trunc(toNumber(value));
}

/** Reads an optional sub-document option (filter, sort, projection). */
export function optionalDocument(cmd: Doc, field: string): Doc | undefined {
  const value = cmd[field];
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) {
    throw new CommandError(
      'TypeMismatch',
      `BSON field '${field}' is the wrong type '${typeAlias(value)}', expected type 'object'`,
    );
  }
  return value;
}

/** The reply shape of every cursor-returning command. */
export function cursorReply(ns: string, batch: Batch, key: 'firstBatch' | 'nextBatch' = 'firstBatch'): Doc {
  return { cursor: { [key]: batch.docs, id: Long.fromNumber(batch.id), ns }, ok: 1 };
}

/** The `batchSize` inside a `cursor: { batchSize }` option (aggregate, listIndexes, listCollections). */
export function cursorBatchSize(cmd: Doc): number | undefined {
  const cursor = cmd['cursor'];
  return isPlainObject(cursor) ? optionalInteger(cursor, 'batchSize') : undefined;
}
