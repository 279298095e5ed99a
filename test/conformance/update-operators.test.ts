import { serverError, useMongoTarget } from './mongo-target';

const target = useMongoTarget();

async function updated(initial: object, update: object): Promise<unknown> {
  const c = target.db().collection('u');
  await c.insertOne({ _id: 1, ...initial } as never);
  await c.updateOne({ _id: 1 } as never, update);
  return c.findOne({ _id: 1 } as never);
}

describe('update operators', () => {
  it('$set creates intermediate sub-documents', async () => {
    expect(await updated({}, { $set: { 'a.b.c': 1 } })).toEqual({ _id: 1, a: { b: { c: 1 } } });
  });

  it('$set addresses an array element by index', async () => {
    const steps = [{ state: 'Pending' }, { state: 'Pending' }];
    expect(await updated({ steps }, { $set: { 'steps.1.state': 'Done' } })).toEqual({
      _id: 1,
      steps: [{ state: 'Pending' }, { state: 'Done' }],
    });
  });

  it('$unset removes fields', async () => {
    expect(await updated({ a: 1, b: 2 }, { $unset: { a: '' } })).toEqual({ _id: 1, b: 2 });
  });

  it('$inc adds to numbers and creates missing fields', async () => {
    expect(await updated({ n: 5 }, { $inc: { n: 2, m: -1 } })).toEqual({ _id: 1, n: 7, m: -1 });
  });

  it('$inc widens an overflowing int to a long and keeps doubles', async () => {
    await updated({ i: 2147483647, d: 1.5 }, { $inc: { i: 1, d: 1.5 } });
    const c = target.db().collection('u');
    expect(await c.countDocuments({ i: { $type: 'long' }, d: { $type: 'double' } })).toBe(1);
    expect(await c.findOne({ _id: 1 } as never)).toMatchObject({ i: 2147483648, d: 3 });
  });

  it('$push appends, with $each several values', async () => {
    expect(await updated({ a: [1] }, { $push: { a: { $each: [2, 3] }, b: 'x' } })).toEqual({
      _id: 1,
      a: [1, 2, 3],
      b: ['x'],
    });
  });

  it('$addToSet adds only absent values', async () => {
    expect(await updated({ a: [1, 2] }, { $addToSet: { a: { $each: [2, 3, 3] } } })).toEqual({
      _id: 1,
      a: [1, 2, 3],
    });
  });

  it('$min and $max keep the smaller and the larger value', async () => {
    expect(
      await updated({ lo: 5, hi: 5, a: 1, b: 1 }, { $min: { lo: 3, a: 7 }, $max: { hi: 4, b: 9 } }),
    ).toEqual({
      _id: 1,
      lo: 3,
      hi: 5,
      a: 1,
      b: 9,
    });
  });

  it('$currentDate sets the server date', async () => {
    const before = Date.now() - 60_000;
    const doc = (await updated({}, { $currentDate: { at: true } })) as { at: Date };
    expect(doc.at).toBeInstanceOf(Date);
    expect(doc.at.getTime()).toBeGreaterThan(before);
  });

  it('replaces a whole document and keeps its _id', async () => {
    const c = target.db().collection('u');
    await c.insertOne({ _id: 1, a: 1, b: 2 } as never);
    const result = await c.replaceOne({ _id: 1 } as never, { c: 3 });
    expect(result.modifiedCount).toBe(1);
    expect(await c.findOne({ _id: 1 } as never)).toEqual({ _id: 1, c: 3 });
  });

  it('counts matched and modified documents, not counting no-op updates as modified', async () => {
    const c = target.db().collection('u');
    await c.insertMany([
      { g: 1, v: 1 },
      { g: 1, v: 2 },
      { g: 2, v: 1 },
    ]);
    const many = await c.updateMany({ g: 1 }, { $set: { v: 1 } });
    expect(many).toMatchObject({ matchedCount: 2, modifiedCount: 1 });
    const none = await c.updateOne({ g: 3 }, { $set: { v: 1 } });
    expect(none).toMatchObject({ matchedCount: 0, modifiedCount: 0, upsertedCount: 0 });
  });
});

describe('upserts', () => {
  it('inserts with $setOnInsert and the filter equality fields, then ignores $setOnInsert on match', async () => {
    const c = target.db().collection('u');
    const first = await c.updateOne(
      { orderId: 'o-1', state: { $eq: 'New' }, n: { $gt: 0 } },
      { $set: { touched: 1 }, $setOnInsert: { createdBy: 'first' } },
      { upsert: true },
    );
    expect(first.upsertedCount).toBe(1);
    expect(first.upsertedId).toBeDefined();
    const doc = await c.findOne({ orderId: 'o-1' });
    expect(doc).toEqual({
      _id: first.upsertedId,
      orderId: 'o-1',
      state: 'New',
      touched: 1,
      createdBy: 'first',
    });
    const second = await c.updateOne(
      { orderId: 'o-1' },
      { $set: { touched: 2 }, $setOnInsert: { createdBy: 'second' } },
      { upsert: true },
    );
    expect(second).toMatchObject({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0 });
    expect(await c.findOne({ orderId: 'o-1' })).toMatchObject({ touched: 2, createdBy: 'first' });
  });

  it('takes the _id of an upserted document from the filter', async () => {
    const c = target.db().collection('u');
    const result = await c.updateOne(
      { _id: 'fixed', $and: [{ kind: 'k' }] } as never,
      { $inc: { n: 1 } },
      { upsert: true },
    );
    expect(result.upsertedId).toBe('fixed');
    expect(await c.findOne({ _id: 'fixed' } as never)).toEqual({ _id: 'fixed', kind: 'k', n: 1 });
  });
});

describe('update errors', () => {
  it('rejects an unknown modifier with FailedToParse', async () => {
    const error = await serverError(updated({}, { $foo: { a: 1 } }));
    expect(error.code).toBe(9);
    expect(error.message).toContain('Unknown modifier: $foo');
  });

  it('rejects $inc of a non-number with TypeMismatch', async () => {
    const error = await serverError(updated({ a: 'text' }, { $inc: { a: 1 } }));
    expect(error.code).toBe(14);
    expect(error.message).toContain('Cannot apply $inc to a value of non-numeric type');
  });

  it('rejects two operators on one path with ConflictingUpdateOperators', async () => {
    const error = await serverError(updated({}, { $set: { a: 1 }, $inc: { a: 1 } }));
    expect(error.code).toBe(40);
    expect(error.message).toContain("would create a conflict at 'a'");
  });

  it('rejects a change of _id with ImmutableField', async () => {
    const error = await serverError(updated({}, { $set: { _id: 2 } }));
    expect(error.code).toBe(66);
    expect(error.message).toContain("immutable field '_id'");
    const c = target.db().collection('u');
    const replaced = await serverError(c.replaceOne({ _id: 1 } as never, { _id: 3, a: 1 } as never));
    expect(replaced.code).toBe(66);
  });

  it('rejects creating a field inside a scalar with PathNotViable', async () => {
    const error = await serverError(updated({ a: 1 }, { $set: { 'a.b': 1 } }));
    expect(error.code).toBe(28);
    expect(error.message).toContain("Cannot create field 'b'");
  });

  it('leaves the document unchanged when an update fails', async () => {
    await serverError(updated({ a: 1, s: 'x' }, { $set: { a: 2 }, $inc: { s: 1 } }));
    expect(
      await target
        .db()
        .collection('u')
        .findOne({ _id: 1 } as never),
    ).toEqual({ _id: 1, a: 1, s: 'x' });
  });
});
