import { serverError, useMongoTarget } from './mongo-target';

const target = useMongoTarget();

describe('findAndModify', () => {
  it('returns the document before the update by default and after it on request', async () => {
    const c = target.db().collection('f');
    await c.insertOne({ _id: 1, n: 1 } as never);
    expect(await c.findOneAndUpdate({ _id: 1 } as never, { $inc: { n: 1 } })).toEqual({ _id: 1, n: 1 });
    expect(
      await c.findOneAndUpdate({ _id: 1 } as never, { $inc: { n: 1 } }, { returnDocument: 'after' }),
    ).toEqual({ _id: 1, n: 3 });
  });

  it('picks the first document in sort order and projects the result', async () => {
    const c = target.db().collection('f');
    await c.insertMany([
      { _id: 1, p: 2, x: 'a' },
      { _id: 2, p: 1, x: 'b' },
      { _id: 3, p: 3, x: 'c' },
    ] as never[]);
    const doc = await c.findOneAndUpdate(
      {},
      { $set: { taken: true } },
      { sort: { p: 1 }, projection: { x: 1, _id: 0 }, returnDocument: 'after' },
    );
    expect(doc).toEqual({ x: 'b' });
    expect(await c.countDocuments({ taken: true })).toBe(1);
  });

  it('reports matches, upserts and misses in lastErrorObject', async () => {
    const c = target.db().collection('f');
    const upserted = await c.findOneAndUpdate(
      { k: 'a' },
      { $set: { v: 1 } },
      { upsert: true, returnDocument: 'after', includeResultMetadata: true },
    );
    expect(upserted.lastErrorObject).toMatchObject({ n: 1, updatedExisting: false });
    expect(upserted.lastErrorObject?.['upserted']).toEqual(upserted.value?._id);
    expect(upserted.value).toMatchObject({ k: 'a', v: 1 });
    const matched = await c.findOneAndUpdate({ k: 'a' }, { $set: { v: 2 } }, { includeResultMetadata: true });
    expect(matched.lastErrorObject).toEqual({ n: 1, updatedExisting: true });
    expect(matched.value).toMatchObject({ v: 1 });
    const missed = await c.findOneAndUpdate({ k: 'zz' }, { $set: { v: 3 } }, { includeResultMetadata: true });
    expect(missed.lastErrorObject).toEqual({ n: 0, updatedExisting: false });
    expect(missed.value).toBeNull();
  });

  it('returns null for an upsert when asked for the document before it', async () => {
    const c = target.db().collection('f');
    expect(await c.findOneAndUpdate({ k: 'new' }, { $setOnInsert: { v: 1 } }, { upsert: true })).toBeNull();
    expect(await c.findOne({ k: 'new' })).toMatchObject({ v: 1 });
  });

  it('removes and returns a document', async () => {
    const c = target.db().collection('f');
    await c.insertMany([
      { _id: 1, p: 2 },
      { _id: 2, p: 1 },
    ] as never[]);
    expect(await c.findOneAndDelete({}, { sort: { p: 1 } })).toEqual({ _id: 2, p: 1 });
    expect(await c.findOneAndDelete({ p: 99 })).toBeNull();
    expect(await c.countDocuments()).toBe(1);
  });

  it('replaces a document and returns the replacement', async () => {
    const c = target.db().collection('f');
    await c.insertOne({ _id: 1, a: 1 } as never);
    expect(await c.findOneAndReplace({ _id: 1 } as never, { b: 2 }, { returnDocument: 'after' })).toEqual({
      _id: 1,
      b: 2,
    });
  });

  it('lets exactly one of many concurrent conditional claims win each document', async () => {
    const c = target.db().collection('f');
    await c.insertMany(Array.from({ length: 5 }, (_, i) => ({ _id: i, state: 'Pending' })) as never[]);
    const claims = await Promise.all(
      Array.from({ length: 25 }, (_, worker) =>
        c.findOneAndUpdate(
          { state: 'Pending' },
          { $set: { state: 'Processing', lockedBy: worker } },
          { returnDocument: 'after' },
        ),
      ),
    );
    const won = claims.filter((d) => d !== null);
    expect(won).toHaveLength(5);
    expect(new Set(won.map((d) => d?._id)).size).toBe(5);
    expect(await c.countDocuments({ state: 'Processing' })).toBe(5);
  });

  it('fails with DuplicateKey as a command error when the update breaks a unique index', async () => {
    const c = target.db().collection('f');
    await c.createIndex({ k: 1 }, { unique: true });
    await c.insertMany([{ k: 1 }, { k: 2 }]);
    const error = await serverError(c.findOneAndUpdate({ k: 2 }, { $set: { k: 1 } }));
    expect(error.code).toBe(11000);
    expect(error.message).toContain('E11000 duplicate key error');
  });

  it('rejects update and remove together', async () => {
    const db = target.db();
    await db.collection('f').insertOne({ a: 1 });
    const error = await serverError(
      db.command({ findAndModify: 'f', query: {}, remove: true, update: { $set: { a: 2 } } }),
    );
    expect(error.code).toBe(9);
    expect(error.message).toContain('remove');
  });
});

describe('delete', () => {
  it('deletes one or all matching documents', async () => {
    const c = target.db().collection('d');
    await c.insertMany([{ g: 1 }, { g: 1 }, { g: 1 }, { g: 2 }]);
    expect((await c.deleteOne({ g: 1 })).deletedCount).toBe(1);
    expect((await c.deleteMany({ g: 1 })).deletedCount).toBe(2);
    expect((await c.deleteMany({ g: 9 })).deletedCount).toBe(0);
    expect(await c.countDocuments()).toBe(1);
  });
});
