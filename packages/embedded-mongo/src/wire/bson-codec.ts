import { deserialize, serialize } from 'bson';
import type { Doc } from '../bson/bson-types';
import { CommandError } from '../errors/command-error';
import { checkBsonNesting } from './bson-nesting-check';

/**
 * How command documents are decoded: Longs stay Longs (so int64 values keep their type and
 * cursor ids their precision), other numbers become JS numbers, binaries stay `Binary`,
 * regexes become RegExp (and are then refused by the matcher).
 *
 * The nesting is checked on the bytes first: past MongoDB's 200 levels this throws the
 * CommandError MongoDB answers (Overflow, code 15), which the connection sends back as the
 * command's reply; bytes that are not BSON throw a plain Error, which closes the connection.
 * Either way the recursive decoder never sees a document deep enough to exhaust the stack.
 */
export function decodeDocument(bytes: Buffer): Doc {
  const verdict = checkBsonNesting(bytes);
  if (verdict === 'too-deep')
    throw new CommandError('Overflow', 'BSONObj exceeds maximum nested object depth');
  if (verdict === 'malformed') throw new Error('invalid BSON document in the wire message');
  return deserialize(bytes, { promoteLongs: false, promoteValues: true, promoteBuffers: false }) as Doc;
}

/** Encodes a reply document; undefined values are dropped rather than written as BSON undefined. */
export function encodeDocument(doc: Doc): Buffer {
  return Buffer.from(serialize(doc, { checkKeys: false, ignoreUndefined: true }));
}
