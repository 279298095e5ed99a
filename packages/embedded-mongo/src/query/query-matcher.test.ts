import { CommandError } from '../errors/command-error';
import { compileFilter } from './query-matcher';

const doc = {
  _id: 1,
  n: 5,
  s: 'text',
  tags: ['a', 'b'],
  steps: [
    { name: 'pay', state: 'Done' },
    { name: 'ship', state: 'Running' },
  ],
  sub: { k: 1, deep: { v: true } },
  when: new Date(1000),
};

function matches(filter: unknown): boolean {
  return compileFilter(filter)(doc);
}

function errorOf(filter: unknown): CommandError {
  try {
    compileFilter(filter);
  } catch (error) {
    if (error instanceof CommandError) return error;
  }
  throw new Error(`expected ${JSON.stringify(filter)} to be rejected`);
}

describe('compileFilter', () => {
  it('matches everything with an empty or absent filter', () => {
    expect(matches({})).toBe(true);
    expect(matches(undefined)).toBe(true);
  });

  it('matches equality on scalars, array elements and whole sub-documents', () => {
    expect(matches({ n: 5, s: 'text' })).toBe(true);
    expect(matches({ tags: 'b' })).toBe(true);
    expect(matches({ tags: ['a', 'b'] })).toBe(true);
    expect(matches({ tags: ['b', 'a'] })).toBe(false);
    expect(matches({ sub: { k: 1, deep: { v: true } } })).toBe(true);
    expect(matches({ sub: { k: 1 } })).toBe(false);
  });

  it('follows dotted paths through documents, array indexes and arrays of documents', () => {
    expect(matches({ 'sub.deep.v': true })).toBe(true);
    expect(matches({ 'steps.state': 'Running' })).toBe(true);
    expect(matches({ 'steps.0.state': 'Running' })).toBe(false);
    expect(matches({ 'steps.1.state': 'Running' })).toBe(true);
    expect(matches({ 'sub.missing.x': null })).toBe(true);
  });

  it('compares only values of the same type with range operators', () => {
    expect(matches({ n: { $gt: 4, $lte: 5 } })).toBe(true);
    expect(matches({ n: { $gt: 'a' } })).toBe(false);
    expect(matches({ s: { $gt: 'a' } })).toBe(true);
    expect(matches({ when: { $lt: new Date(2000) } })).toBe(true);
    expect(matches({ missing: { $gte: null } })).toBe(true);
    expect(matches({ missing: { $gt: null } })).toBe(false);
  });

  it('treats negations as "no value matches"', () => {
    expect(matches({ tags: { $ne: 'a' } })).toBe(false);
    expect(matches({ tags: { $nin: ['x', 'y'] } })).toBe(true);
    expect(matches({ n: { $not: { $gt: 10 } } })).toBe(true);
    expect(matches({ missing: { $ne: 1 } })).toBe(true);
  });

  it('supports $in, $exists, $size, $type, $elemMatch and the logical operators', () => {
    expect(matches({ s: { $in: ['x', 'text'] } })).toBe(true);
    expect(matches({ missing: { $in: [null] } })).toBe(true);
    expect(matches({ missing: { $exists: false }, s: { $exists: true } })).toBe(true);
    expect(matches({ tags: { $size: 2 } })).toBe(true);
    expect(matches({ n: { $type: 'int' }, s: { $type: ['string', 'null'] }, tags: { $type: 'array' } })).toBe(
      true,
    );
    expect(matches({ steps: { $elemMatch: { name: 'pay', state: 'Running' } } })).toBe(false);
    expect(matches({ steps: { $elemMatch: { name: 'ship', state: 'Running' } } })).toBe(true);
    expect(matches({ $or: [{ n: 1 }, { s: 'text' }], $nor: [{ n: 2 }], $and: [{ n: 5 }] })).toBe(true);
  });

  it('rejects unknown operators and malformed arguments with BadValue', () => {
    expect(errorOf({ n: { $foo: 1 } })).toMatchObject({ code: 2, message: 'unknown operator: $foo' });
    expect(errorOf({ $foo: 1 }).message).toContain('unknown top level operator: $foo');
    expect(errorOf({ $or: [] }).message).toBe('$or must be a nonempty array');
    expect(errorOf({ n: { $in: 1 } }).message).toBe('$in needs an array');
    expect(errorOf({ n: { $type: 'nonsense' } }).message).toContain('Unknown type name alias');
  });

  it('refuses what it does not implement instead of answering wrongly', () => {
    for (const filter of [
      { $where: 'true' },
      { $expr: {} },
      { $text: { $search: 'x' } },
      { s: /t/ },
      { n: { $mod: [2, 1] } },
    ]) {
      const error = errorOf(filter);
      expect(error.code).toBe(2);
      expect(error.message).toContain('not implemented by the embedded MongoDB server');
    }
  });
});
