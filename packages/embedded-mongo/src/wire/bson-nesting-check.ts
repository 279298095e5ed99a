/**
 * How deeply MongoDB lets any BSON it receives nest: `maxBSONDepth`, 200 by default. The root
 * document is one level more, so a document may span 201 levels in all.
 */
const MAX_BSON_DEPTH = 200;

/** What {@link checkBsonNesting} found: the document nests within the limit, past it, or is not valid BSON. */
export type BsonNestingVerdict = 'within' | 'too-deep' | 'malformed';

/** Bytes taken by values of fixed size, by BSON type byte. */
const FIXED_SIZE: ReadonlyMap<number, number> = new Map([
  [0x01, 8], // double
  [0x06, 0], // undefined
  [0x07, 12], // ObjectId
  [0x08, 1], // bool
  [0x09, 8], // UTC datetime
  [0x0a, 0], // null
  [0x10, 4], // int32
  [0x11, 8], // timestamp
  [0x12, 8], // int64
  [0x13, 16], // decimal128
  [0xff, 0], // MinKey
  [0x7f, 0], // MaxKey
]);
const STRING_TYPES = new Set([0x02, 0x0d, 0x0e]); // string, JavaScript code, symbol
const NESTED_TYPES = new Set([0x03, 0x04]); // document, array
const BINARY = 0x05;
const REGEX = 0x0b;
const DB_POINTER = 0x0c;
const CODE_WITH_SCOPE = 0x0f;

/** One open level: where it ends, and whether it is a code-with-scope wrapper around its scope. */
interface Frame {
  readonly end: number;
  readonly codeWithScope: boolean;
}

/**
 * Walks a BSON document's bytes without recursion and says whether it nests deeper than
 * `maxDepth` levels below its root, counting documents and arrays one level each and a
 * code-with-scope two, as MongoDB's BSON validation does. It runs before the `bson` package
 * decodes a message: that decoder recurses once per level, so a message nested 100,000 levels
 * would exhaust the stack, and anything deeper than MongoDB accepts must be refused with
 * MongoDB's error anyway. The walk stops at the first level past the limit, so its cost is
 * bounded by the limit, not by the attacker's depth. It checks lengths and terminators as it
 * goes ('malformed' for anything the decoder would not accept either).
 */
export function checkBsonNesting(bytes: Buffer, maxDepth: number = MAX_BSON_DEPTH): BsonNestingVerdict {
  if (bytes.length < 5) return 'malformed';
  const length = bytes.readInt32LE(0);
  if (length < 5 || length > bytes.length) return 'malformed';
  const frames: Frame[] = [{ end: length, codeWithScope: false }];
  let at = 4;
  const fits = (size: number, frame: Frame): boolean => size >= 0 && at + size <= frame.end - 1;
  const stringSize = (frame: Frame): number => {
    if (at + 4 > frame.end) return -1;
    const size = bytes.readInt32LE(at);
    if (size < 1 || !fits(4 + size, frame) || bytes[at + 4 + size - 1] !== 0) return -1;
    return 4 + size;
  };
  const cstringSize = (frame: Frame): number => {
    const nul = bytes.indexOf(0, at);
    return nul < 0 || nul >= frame.end ? -1 : nul + 1 - at;
  };
  /** Opens the level whose int32 length is at `at`; it must end exactly at `end` when given, else inside `frame`. */
  const open = (frame: Frame, codeWithScope: boolean, end?: number): BsonNestingVerdict | undefined => {
    if (frames.length > maxDepth) return 'too-deep';
    if (at + 4 > frame.end) return 'malformed';
    const size = bytes.readInt32LE(at);
    const minimum = codeWithScope ? 14 : 5;
    if (size < minimum || (end === undefined ? at + size > frame.end - 1 : at + size !== end))
      return 'malformed';
    frames.push({ end: at + size, codeWithScope });
    at += 4;
    return undefined;
  };

  for (;;) {
    const frame = frames[frames.length - 1] as Frame;
    if (at >= frame.end) return 'malformed';
    const type = bytes[at] as number;
    at += 1;
    if (type === 0) {
      if (at !== frame.end) return 'malformed';
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent === undefined) return 'within';
      if (parent.codeWithScope) {
        // The scope was the last part of a code-with-scope: close the wrapper level too.
        if (at !== parent.end) return 'malformed';
        frames.pop();
      }
      continue;
    }
    const name = cstringSize(frame);
    if (name < 0) return 'malformed';
    at += name;
    if (NESTED_TYPES.has(type)) {
      const verdict = open(frame, false);
      if (verdict !== undefined) return verdict;
      continue;
    }
    if (type === CODE_WITH_SCOPE) {
      const verdict = open(frame, true);
      if (verdict !== undefined) return verdict;
      const wrapper = frames[frames.length - 1] as Frame;
      const code = stringSize(wrapper);
      if (code < 0) return 'malformed';
      at += code;
      const scope = open(wrapper, false, wrapper.end);
      if (scope !== undefined) return scope;
      continue;
    }
    let size: number;
    const fixed = FIXED_SIZE.get(type);
    if (fixed !== undefined) size = fixed;
    else if (STRING_TYPES.has(type)) size = stringSize(frame);
    else if (type === DB_POINTER) {
      const namespace = stringSize(frame);
      size = namespace < 0 ? -1 : namespace + 12;
    } else if (type === BINARY) {
      const data = at + 4 <= frame.end ? bytes.readInt32LE(at) : -1;
      size = data < 0 ? -1 : 5 + data;
    } else if (type === REGEX) {
      const pattern = cstringSize(frame);
      if (pattern < 0) return 'malformed';
      at += pattern;
      size = cstringSize(frame);
    } else return 'malformed';
    if (!fits(size, frame)) return 'malformed';
    at += size;
  }
}
