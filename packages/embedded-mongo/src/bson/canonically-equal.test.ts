import { BSONSymbol, Binary, Decimal128, Double, Int32, Long, ObjectId, Timestamp } from 'bson';
import { canonicalKey } from './canonical-key';
import { canonicallyEqual } from './canonically-equal';

const shared = { deep: { list: [1, 'a', { x: null }] } };

/** Values that are equal, unequal or nearly equal in every way canonicalKey distinguishes. */
const values: unknown[] = [
  undefined,
  null,
  0,
  -0,
  1,
  1.5,
  new Double(1),
  new Int32(1),
  Long.fromNumber(1),
  Long.fromString('9007199254740993'),
  Decimal128.fromString('1'),
  Number.NaN,
  '',
  '1',
  'a,b',
  new BSONSymbol('1'),
  true,
  false,
  new Date(0),
  new Date(1),
  new Date(Number.NaN),
  Number.POSITIVE_INFINITY,
  ObjectId.createFromHexString('000000000000000000000001'),
  new Binary(Buffer.from('x')),
  new Timestamp({ t: 1, i: 1 }),
  [],
  [1],
  [new Double(1)],
  [1, 2],
  [[1], 2],
  ['a', 'b'],
  ['a,b'],
  {},
  { a: 1 },
  { a: new Long(1) },
  { b: 1 },
  { a: 1, b: 2 },
  { b: 2, a: 1 },
  { a: { b: [1, { c: 'd' }] } },
  { a: { b: [1, { c: 'e' }] } },
  { a: null },
  { a: undefined },
  shared,
  { deep: { list: [1, 'a', { x: null }] } },
  { deep: { list: [1, 'a', { x: 0 }] } },
];

describe('canonicallyEqual', () => {
  it('agrees with comparing canonical keys on every pair of a varied set of values', () => {
    const disagreements: string[] = [];
    for (const a of values) {
      for (const b of values) {
        if (canonicallyEqual(a, b) !== (canonicalKey(a) === canonicalKey(b))) disagreements.push(`${canonicalKey(a)} vs ${canonicalKey(b)}`);
      }
    }
    expect(disagreements).toEqual([]);
  });

  it('treats numbers of different types and null and missing as MongoDB does', () => {
    expect(canonicallyEqual({ n: 1, m: null }, { n: new Double(1), m: undefined })).toBe(true);
    expect(canonicallyEqual({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(canonicallyEqual({ a: [1, 2] }, { a: [1, 2, 3] })).toBe(false);
    expect(canonicallyEqual('1', new BSONSymbol('1'))).toBe(true);
    expect(canonicallyEqual('1', 1)).toBe(false);
  });
});
