import { deserialize, serialize } from 'bson';
import type { Doc } from '../bson/bson-types';

/**
 * How command documents are decoded: Longs stay Longs (so int64 values keep their type and
 * cursor ids their precision), other numbers become JS numbers, binaries stay `Binary`,
 * regexes become RegExp (and are then refused by the matcher).
 */
export function decodeDocument(bytes: Buffer): Doc {
  return deserialize(bytes, { promoteLongs: false, promoteValues: true, promoteBuffers: false }) as Doc;
}

/** Encodes a reply document; undefined values are dropped rather than written as BSON undefined. */
export function encodeDocument(doc: Doc): Buffer {
  return Buffer.from(serialize(doc, { checkKeys: false, ignoreUndefined: true }));
}
