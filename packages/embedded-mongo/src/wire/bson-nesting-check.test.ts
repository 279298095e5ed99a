import {
  Binary,
  BSONRegExp,
  BSONSymbol,
  Code,
  DBRef,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  serialize,
  Timestamp,
} from 'bson';
import { checkBsonNesting } from './bson-nesting-check';

function chain(levels: number): Record<string, unknown> {
  let doc: Record<string, unknown> = { leaf: 1 };
  for (let level = 1; level < levels; level++) doc = { a: doc };
  return doc;
}

const bytes = (doc: Record<string, unknown>): Buffer => Buffer.from(serialize(doc));

describe('checkBsonNesting', () => {
  it('walks every BSON type the decoder accepts', () => {
    const doc = {
      double: new Double(1.5),
      string: 'héllo',
      doc: { a: [1, 'two', { three: 3 }] },
      binary: new Binary(Buffer.from([1, 2, 3]), 4),
      undefinedValue: undefined,
      oid: new ObjectId(),
      bool: true,
      date: new Date(0),
      nullValue: null,
      regex: new BSONRegExp('^a', 'i'),
      code: new Code('function () {}'),
      symbol: new BSONSymbol('s'),
      codeWithScope: new Code('x', { y: { z: 1 } }),
      int32: new Int32(7),
      timestamp: new Timestamp({ t: 1, i: 2 }),
      int64: Long.fromNumber(8),
      decimal: Decimal128.fromString('9.5'),
      min: new MinKey(),
      max: new MaxKey(),
      ref: new DBRef('c', new ObjectId()),
    };
    expect(checkBsonNesting(Buffer.from(serialize(doc, { ignoreUndefined: false })))).toBe('within');
  });

  it('allows 200 levels below the root and refuses 201', () => {
    expect(checkBsonNesting(bytes(chain(201)))).toBe('within');
    expect(checkBsonNesting(bytes(chain(202)))).toBe('too-deep');
    expect(checkBsonNesting(bytes(chain(4)), 2)).toBe('too-deep');
    expect(checkBsonNesting(bytes(chain(3)), 2)).toBe('within');
  });

  it('counts a code-with-scope as two levels, as MongoDB does', () => {
    expect(checkBsonNesting(bytes({ c: new Code('x', { s: { t: 1 } }) }), 3)).toBe('within');
    expect(checkBsonNesting(bytes({ c: new Code('x', { s: { t: 1 } }) }), 2)).toBe('too-deep');
  });

  it('calls truncated or inconsistent bytes malformed', () => {
    const good = bytes({ a: { b: 'text' }, n: 1 });
    expect(checkBsonNesting(good.subarray(0, good.length - 1))).toBe('malformed');
    expect(checkBsonNesting(Buffer.from([4, 0, 0, 0]))).toBe('malformed');
    const wrongInnerLength = Buffer.from(good);
    wrongInnerLength.writeInt32LE(200, 7); // the embedded document claims more than its parent holds
    expect(checkBsonNesting(wrongInnerLength)).toBe('malformed');
    const unknownType = Buffer.from(good);
    unknownType[4] = 0x42;
    expect(checkBsonNesting(unknownType)).toBe('malformed');
    const negativeBinary = bytes({ b: new Binary(Buffer.from([1])) });
    negativeBinary.writeInt32LE(-3, 7);
    expect(checkBsonNesting(negativeBinary)).toBe('malformed');
  });

  it('never throws on corrupted bytes', () => {
    const good = bytes({ a: { b: ['x', { c: new Code('y', { d: 1 }) }] }, n: Long.fromNumber(3), r: /z/ });
    let seed = 12345;
    const random = (below: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % below;
    };
    for (let round = 0; round < 5_000; round++) {
      const corrupted = Buffer.from(good);
      for (let flips = 1 + random(3); flips > 0; flips--) corrupted[random(corrupted.length)] = random(256);
      expect(['within', 'too-deep', 'malformed']).toContain(checkBsonNesting(corrupted));
    }
  });
});
