import { Double, Long } from 'bson';
import { CommandError } from '../errors/command-error';
import { UpdateApplier } from './update-applier';
import { buildUpsertDocument } from './upsert-seed';

const now = new Date(1_700_000_000_000);

function apply(doc: Record<string, unknown>, update: unknown, isInsert = false): Record<string, unknown> {
  return UpdateApplier.compile(update).apply(doc, { isInsert, now });
}

function errorOf(run: () => unknown): CommandError {
  try {
    run();
  } catch (error) {
    if (error instanceof CommandError) return error;
  }
  throw new Error('expected a CommandError');
}

describe('UpdateApplier', () => {
  it('sets nested paths, creating sub-documents, and indexes into arrays', () => {
    expect(apply({ _id: 1 }, { $set: { 'a.b': 1 } })).toEqual({ _id: 1, a: { b: 1 } });
    expect(apply({ _id: 1, s: [{ v: 1 }, { v: 2 }] }, { $set: { 's.1.v': 9 } })).toEqual({
      _id: 1,
      s: [{ v: 1 }, { v: 9 }],
    });
    expect(apply({ _id: 1, s: [] }, { $set: { 's.2': 'x' } })).toEqual({ _id: 1, s: [null, null, 'x'] });
  });

  it('never modifies the input document', () => {
    const doc = { _id: 1, a: { b: 1 }, list: [1] };
    apply(doc, { $set: { 'a.b': 2 }, $push: { list: 2 } });
    expect(doc).toEqual({ _id: 1, a: { b: 1 }, list: [1] });
  });

  it('unsets fields and nulls array elements', () => {
    expect(apply({ _id: 1, a: 1, b: [1, 2] }, { $unset: { a: '', 'b.0': '', missing: '' } })).toEqual({
      _id: 1,
      b: [null, 2],
    });
  });

  it('increments keeping MongoDB numeric types', () => {
    expect(apply({ _id: 1, n: 1 }, { $inc: { n: 2, m: 5 } })).toEqual({ _id: 1, n: 3, m: 5 });
    expect(apply({ _id: 1, n: 1.5 }, { $inc: { n: 1.5 } })['n']).toEqual(new Double(3));
    expect(apply({ _id: 1, n: 2147483647 }, { $inc: { n: 1 } })['n']).toEqual(Long.fromNumber(2147483648));
    expect(apply({ _id: 1, n: Long.fromNumber(1) }, { $inc: { n: 1 } })['n']).toEqual(Long.fromNumber(2));
  });

  it('pushes and adds to sets, with $each', () => {
    expect(apply({ _id: 1, a: [1] }, { $push: { a: { $each: [2, 3] } } })['a']).toEqual([1, 2, 3]);
    expect(apply({ _id: 1, a: [1] }, { $addToSet: { a: { $each: [1, 2, 2] }, b: 'x' } })).toEqual({
      _id: 1,
      a: [1, 2],
      b: ['x'],
    });
  });

  it('applies $min, $max and $currentDate', () => {
    expect(apply({ _id: 1, lo: 5, hi: 5 }, { $min: { lo: 1 }, $max: { hi: 3 } })).toEqual({
      _id: 1,
      lo: 1,
      hi: 5,
    });
    expect(apply({ _id: 1 }, { $currentDate: { at: true } })['at']).toEqual(now);
  });

  it('applies $setOnInsert only when inserting', () => {
    expect(apply({ _id: 1 }, { $setOnInsert: { a: 1 } })).toEqual({ _id: 1 });
    expect(apply({ _id: 1 }, { $setOnInsert: { a: 1 } }, true)).toEqual({ _id: 1, a: 1 });
  });

  it('replaces documents keeping _id and refuses a different _id', () => {
    expect(apply({ _id: 1, a: 1 }, { b: 2 })).toEqual({ _id: 1, b: 2 });
    expect(errorOf(() => apply({ _id: 1 }, { _id: 2 }))).toMatchObject({ code: 66 });
    expect(errorOf(() => apply({ _id: 1 }, { $set: { _id: 2 } }))).toMatchObject({
      code: 66,
      codeName: 'ImmutableField',
    });
    expect(apply({ _id: 1 }, { $set: { _id: 1, a: 1 } })).toEqual({ _id: 1, a: 1 });
  });

  it('rejects bad updates with MongoDB codes before touching data', () => {
    expect(errorOf(() => UpdateApplier.compile({ $foo: { a: 1 } }))).toMatchObject({ code: 9 });
    expect(errorOf(() => UpdateApplier.compile({ $set: { a: 1 }, $inc: { a: 1 } }))).toMatchObject({
      code: 40,
    });
    expect(errorOf(() => UpdateApplier.compile({ $set: { 'a.b': 1 }, $unset: { a: 1 } }))).toMatchObject({
      code: 40,
    });
    expect(errorOf(() => UpdateApplier.compile({ $inc: { a: 'x' } }))).toMatchObject({ code: 14 });
    expect(errorOf(() => apply({ _id: 1, a: 'x' }, { $inc: { a: 1 } }))).toMatchObject({
      code: 14,
      codeName: 'TypeMismatch',
    });
    expect(errorOf(() => apply({ _id: 1, a: 1 }, { $set: { 'a.b': 1 } }))).toMatchObject({ code: 28 });
    expect(errorOf(() => apply({ _id: 1, a: 1 }, { $push: { a: 1 } }))).toMatchObject({ code: 2 });
  });

  it('refuses what it does not implement', () => {
    for (const update of [
      [{ $set: { a: 1 } }],
      { $pull: { a: 1 } },
      { $set: { 'a.$': 1 } },
      { $push: { a: { $each: [1], $slice: 2 } } },
    ]) {
      expect(errorOf(() => UpdateApplier.compile(update)).message).toContain(
        'not implemented by the embedded MongoDB server',
      );
    }
  });
});

describe('buildUpsertDocument', () => {
  it('seeds from filter equalities, applies the update as an insert and puts _id first', () => {
    const doc = buildUpsertDocument(
      { orderId: 'o', state: { $eq: 'New' }, n: { $gt: 1 }, $and: [{ 'meta.kind': 'k' }] },
      UpdateApplier.compile({ $set: { x: 1 }, $setOnInsert: { created: true } }),
      { now },
    );
    expect(Object.keys(doc)[0]).toBe('_id');
    expect(doc).toMatchObject({ orderId: 'o', state: 'New', meta: { kind: 'k' }, x: 1, created: true });
    expect(doc['n']).toBeUndefined();
  });

  it('keeps only the filter _id for a replacement upsert', () => {
    expect(buildUpsertDocument({ _id: 7, a: 1 }, UpdateApplier.compile({ b: 2 }), { now })).toEqual({
      _id: 7,
      b: 2,
    });
  });
});

describe('UpdateApplier and the 180-level storage limit', () => {
  it('refuses a $set on a 100,000-part dotted path with Overflow, in bounded stack', () => {
    const path = Array.from({ length: 100_000 }, () => 'p').join('.');
    const error = errorOf(() => apply({ _id: 1 }, { $set: { [path]: 1 } }));
    expect({ code: error.code, message: error.message }).toEqual({
      code: 15,
      message: 'Document exceeds maximum nesting depth of 180',
    });
  });

  it('counts fields, not levels, as MongoDB storage validation does: an empty document at level 181 passes', () => {
    const atLimit = Array.from({ length: 180 }, () => 'p').join('.');
    expect(() => apply({ _id: 1 }, { $set: { [atLimit]: {} } })).not.toThrow();
    expect(errorOf(() => apply({ _id: 1 }, { $set: { [atLimit]: { x: 1 } } })).code).toBe(15);
  });
});
