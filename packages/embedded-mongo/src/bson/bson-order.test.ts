import { Binary, Double, Long, MaxKey, MinKey, ObjectId, Timestamp } from 'bson';
import { compareValues, valuesEqual } from './bson-order';
import { canonicalKey } from './canonical-key';

describe('BSON ordering', () => {
  it('orders values of different types by MongoDB type rank', () => {
    const ascending = [
      new MinKey(),
      null,
      -5,
      'a',
      { a: 1 },
      [1],
      new Binary(Buffer.from('x')),
      ObjectId.createFromHexString('000000000000000000000001'),
      false,
      new Date(0),
      new Timestamp({ t: 1, i: 1 }),
      /re/,
      new MaxKey(),
    ];
    const shuffled = [...ascending].reverse();
    expect(shuffled.sort(compareValues)).toEqual(ascending);
  });

  it('compares numbers across double, int and long', () => {
    expect(compareValues(1, Long.fromNumber(2))).toBe(-1);
    expect(compareValues(new Double(2), 2)).toBe(0);
    expect(compareValues(Long.fromString('9007199254740993'), Long.fromString('9007199254740992'))).toBe(1);
    expect(compareValues(Number.NaN, -Infinity)).toBe(-1);
  });

  it('treats null and missing as equal', () => {
    expect(valuesEqual(null, undefined)).toBe(true);
  });

  it('compares documents field by field, including field order', () => {
    expect(compareValues({ a: 1, b: 2 }, { a: 1, b: 3 })).toBe(-1);
    expect(valuesEqual({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(compareValues({ a: 1 }, { a: 1, b: 0 })).toBe(-1);
  });

  it('compares arrays element by element, then by length', () => {
    expect(compareValues([1, 2], [1, 3])).toBe(-1);
    expect(compareValues([1, 2], [1])).toBe(1);
  });

  it('compares strings by UTF-8 bytes', () => {
    expect(compareValues('\uffff', '\u{1F600}')).toBe(-1);
  });

  it('gives equal values equal canonical keys and different values different keys', () => {
    expect(canonicalKey(1)).toBe(canonicalKey(Long.fromNumber(1)));
    expect(canonicalKey(1)).toBe(canonicalKey(new Double(1)));
    expect(canonicalKey(null)).toBe(canonicalKey(undefined));
    expect(canonicalKey('1')).not.toBe(canonicalKey(1));
    expect(canonicalKey({ a: 1, b: 2 })).not.toBe(canonicalKey({ b: 2, a: 1 }));
  });
});
