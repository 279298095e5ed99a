import { Double, Long } from 'bson';

/** A decoded BSON document as this server holds it: plain objects whose values are BSON values. */
export type Doc = Record<string, unknown>;

/** The `_bsontype` tag the `bson` package puts on its value classes (ObjectId, Long, Binary, ...). */
function bsonTag(value: object): string | undefined {
  const tag: unknown = (value as { _bsontype?: unknown })._bsontype;
  return typeof tag === 'string' ? tag : undefined;
}

/**
 * True for an embedded document (a plain object), false for arrays and for BSON value classes.
 * Path traversal and projection descend only into these, as MongoDB descends only into documents.
 */
export function isPlainObject(value: unknown): value is Doc {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (value instanceof Date || value instanceof RegExp || value instanceof Uint8Array) return false;
  return bsonTag(value) === undefined;
}

/** True for every BSON numeric type: double, int32, int64 (Long) and Decimal128. */
export function isNumeric(value: unknown): boolean {
  if (typeof value === 'number') return true;
  if (typeof value !== 'object' || value === null) return false;
  const tag = bsonTag(value);
  return tag === 'Long' || tag === 'Double' || tag === 'Int32' || tag === 'Decimal128';
}

/** A numeric BSON value as a JS number (Longs beyond 2^53 lose precision, as in MongoDB's double math). */
export function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'object' && value !== null) {
    const tag = bsonTag(value);
    if (tag === 'Long') return (value as Long).toNumber();
    if (tag === 'Double' || tag === 'Int32') return (value as Double).valueOf();
    if (tag === 'Decimal128') return Number.parseFloat(String(value));
  }
  return Number.NaN;
}

/**
 * MongoDB's `$type` alias of a value ('double', 'int', 'long', 'string', 'object', ...), or
 * 'missing' for an absent field. JS numbers are classified the way the `bson` serializer
 * writes them (int32 when integral and in range, double otherwise), so an alias matches what
 * real MongoDB stored for the same driver call.
 */
export function typeAlias(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  switch (typeof value) {
    case 'number':
      return Number.isInteger(value) && value >= -2147483648 && value <= 2147483647 ? 'int' : 'double';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'long';
    case 'object':
      break;
    default:
      return 'javascript';
  }
  if (Array.isArray(value)) return 'array';
  if (value instanceof Date) return 'date';
  if (value instanceof RegExp) return 'regex';
  if (value instanceof Uint8Array) return 'binData';
  switch (bsonTag(value)) {
    case undefined:
      return 'object';
    case 'ObjectId':
      return 'objectId';
    case 'Long':
      return 'long';
    case 'Double':
      return 'double';
    case 'Int32':
      return 'int';
    case 'Decimal128':
      return 'decimal';
    case 'Binary':
      return 'binData';
    case 'Timestamp':
      return 'timestamp';
    case 'BSONRegExp':
      return 'regex';
    case 'MinKey':
      return 'minKey';
    case 'MaxKey':
      return 'maxKey';
    case 'BSONSymbol':
      return 'symbol';
    case 'DBRef':
      return 'object';
    default:
      return 'javascript';
  }
}

/**
 * MongoDB's canonical type rank: values of different ranks order by rank, values of one rank
 * compare by value. Null and missing share a rank; all numeric types share one.
 */
export function typeRank(value: unknown): number {
  switch (typeAlias(value)) {
    case 'minKey':
      return -1;
    case 'missing':
    case 'null':
      return 5;
    case 'double':
    case 'int':
    case 'long':
    case 'decimal':
      return 10;
    case 'string':
    case 'symbol':
      return 15;
    case 'object':
      return 20;
    case 'array':
      return 25;
    case 'binData':
      return 30;
    case 'objectId':
      return 35;
    case 'bool':
      return 40;
    case 'date':
      return 45;
    case 'timestamp':
      return 47;
    case 'regex':
      return 50;
    case 'maxKey':
      return 127;
    default:
      return 60;
  }
}

/** Integral result of int/long arithmetic, kept as a JS number when it fits int32 and as a Long otherwise (MongoDB widens int to long). */
export function integralResult(value: number | bigint): number | Long {
  if (typeof value === 'number' && value >= -2147483648 && value <= 2147483647) return value;
  return Long.fromBigInt(BigInt(value));
}

/** A double result kept as a BSON double even when it happens to be integral (3.0 stays a double). */
export function doubleResult(value: number): number | Double {
  return Number.isInteger(value) ? new Double(value) : value;
}
