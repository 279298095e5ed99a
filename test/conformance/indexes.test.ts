import { MongoBulkWriteError } from 'mongodb';
import { serverError, useMongoTarget } from './mongo-target';

const target = useMongoTarget();

describe('unique indexes', () => {
  it('rejects a duplicate key with MongoDB E11000 message, keyPattern and keyValue', async () => {
    const c = target.db().collection('orders');
    expect(await c.createIndex({ orderId: 1 }, { unique: true })).toBe('orderId_1');
    await c.insertOne({ orderId: 'o-1' });
    const error = await serverError(c.insertOne({ orderId: 'o-1' }));
    expect(error.code).toBe(11000);
    expect(error.message).toContain(
      `E11000 duplicate key error collection: ${c.namespace} index: orderId_1 dup key: { orderId: "o-1" }`,
    );
    expect(error['keyPattern']).toEqual({ orderId: 1 });
    expect(error['keyValue']).toEqual({ orderId: 'o-1' });
  });

  it('enforces compound keys on the combination only', async () => {
    const c = target.db().collection('orders');
    await c.createIndex({ a: 1, b: -1 }, { unique: true });
    await c.insertMany([
      { a: 1, b: 1 },
      { a: 1, b: 2 },
      { a: 2, b: 1 },
    ]);
    const error = await serverError(c.insertOne({ a: 1, b: 2 }));
    expect(error.code).toBe(11000);
    expect(error.message).toContain('index: a_1_b_-1');
  });

  it('lets exactly one of many concurrent inserts of one key succeed', async () => {
    const c = target.db().collection('orders');
    await c.createIndex({ orderId: 1 }, { unique: true });
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) => c.insertOne({ orderId: 'race', attempt: i })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results)
      if (r.status === 'rejected') expect((r.reason as { code?: number }).code).toBe(11000);
    expect(await c.countDocuments({ orderId: 'race' })).toBe(1);
  });

  it('ends concurrent upserts of one key with a single document', async () => {
    const c = target.db().collection('orders');
    await c.createIndex({ orderId: 1 }, { unique: true });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        c.updateOne({ orderId: 'up' }, { $setOnInsert: { first: i }, $inc: { seen: 1 } }, { upsert: true }),
      ),
    );
    for (const r of results)
      if (r.status === 'rejected') expect((r.reason as { code?: number }).code).toBe(11000);
    const upserts = results.filter((r) => r.status === 'fulfilled' && r.value.upsertedCount === 1);
    expect(upserts).toHaveLength(1);
    expect(await c.countDocuments({ orderId: 'up' })).toBe(1);
  });

  it('reports a duplicate made by an update as a write error and leaves the data unchanged', async () => {
    const c = target.db().collection('orders');
    await c.createIndex({ k: 1 }, { unique: true });
    await c.insertMany([
      { _id: 1, k: 1 },
      { _id: 2, k: 2 },
    ] as never[]);
    const error = await serverError(c.updateOne({ _id: 2 } as never, { $set: { k: 1 } }));
    expect(error.code).toBe(11000);
    expect(await c.findOne({ _id: 2 } as never)).toEqual({ _id: 2, k: 2 });
    const bulk = await c
      .bulkWrite([{ updateOne: { filter: { _id: 2 }, update: { $set: { k: 1 } } } }] as never)
      .catch((e: unknown) => e);
    expect(bulk).toBeInstanceOf(MongoBulkWriteError);
    expect((bulk as MongoBulkWriteError).writeErrors).toMatchObject([{ index: 0, code: 11000 }]);
  });

  it('treats a missing field as null, so two documents without it collide', async () => {
    const c = target.db().collection('orders');
    await c.createIndex({ k: 1 }, { unique: true });
    await c.insertOne({ a: 1 });
    const error = await serverError(c.insertOne({ a: 2 }));
    expect(error.code).toBe(11000);
    expect(error.message).toContain('dup key: { k: null }');
  });

  it('ignores documents outside a partial unique index', async () => {
    const c = target.db().collection('orders');
    await c.createIndex({ k: 1 }, { unique: true, partialFilterExpression: { k: { $exists: true } } });
    await c.insertMany([{ a: 1 }, { a: 2 }, { k: 1 }]);
    expect((await serverError(c.insertOne({ k: 1 }))).code).toBe(11000);
  });

  it('fails to build a unique index over duplicates and creates nothing', async () => {
    const c = target.db().collection('orders');
    await c.insertMany([{ k: 1 }, { k: 1 }]);
    const error = await serverError(c.createIndex({ k: 1 }, { unique: true }));
    expect(error.code).toBe(11000);
    expect(error.message).toContain('E11000 duplicate key error');
    expect((await c.indexes()).map((i) => i.name)).toEqual(['_id_']);
  });
});

describe('index management', () => {
  it('lists indexes with their options', async () => {
    const c = target.db().collection('ix');
    await c.createIndex({ orderId: 1 }, { unique: true });
    await c.createIndex({ deleteTime: 1 }, { expireAfterSeconds: 3600 });
    await c.createIndex({ state: 1, completeBy: 1 });
    const indexes = await c.indexes();
    expect(indexes.map((i) => i.name)).toEqual(['_id_', 'orderId_1', 'deleteTime_1', 'state_1_completeBy_1']);
    expect(indexes[1]).toMatchObject({ key: { orderId: 1 }, unique: true });
    expect(indexes[2]).toMatchObject({ key: { deleteTime: 1 }, expireAfterSeconds: 3600 });
    expect(indexes[3]?.['unique']).toBeUndefined();
  });

  it('treats creating an identical index as a no-op', async () => {
    const db = target.db();
    const spec = { createIndexes: 'ix', indexes: [{ key: { a: 1 }, name: 'a_1', unique: true }] };
    const first = await db.command(spec);
    expect(first).toMatchObject({ numIndexesBefore: 1, numIndexesAfter: 2, ok: 1 });
    const again = await db.command(spec);
    expect(again).toMatchObject({
      numIndexesBefore: 2,
      numIndexesAfter: 2,
      note: 'all indexes already exist',
      ok: 1,
    });
  });

  it('rejects an index whose name exists with another key or other options', async () => {
    const db = target.db();
    await db.command({ createIndexes: 'ix', indexes: [{ key: { a: 1 }, name: 'my_index' }] });
    const otherKey = await serverError(
      db.command({ createIndexes: 'ix', indexes: [{ key: { b: 1 }, name: 'my_index' }] }),
    );
    expect(otherKey.code).toBe(86);
    expect(otherKey.codeName).toBe('IndexKeySpecsConflict');
    const otherOptions = await serverError(
      db.command({ createIndexes: 'ix', indexes: [{ key: { a: 1 }, name: 'my_index', unique: true }] }),
    );
    expect(otherOptions.code).toBe(85);
    expect(otherOptions.codeName).toBe('IndexOptionsConflict');
  });

  it('drops indexes by name and refuses unknown ones and _id_', async () => {
    const c = target.db().collection('ix');
    await c.createIndex({ a: 1 });
    await c.dropIndex('a_1');
    expect((await c.indexes()).map((i) => i.name)).toEqual(['_id_']);
    const missing = await serverError(c.dropIndex('nope_1'));
    expect(missing.code).toBe(27);
    expect(missing.codeName).toBe('IndexNotFound');
    const idIndex = await serverError(c.dropIndex('_id_'));
    expect(idIndex.code).toBe(72);
  });

  it('drops every index but _id_ with dropIndexes', async () => {
    const c = target.db().collection('ix');
    await c.createIndex({ a: 1 });
    await c.createIndex({ b: 1 }, { unique: true });
    await c.dropIndexes();
    expect((await c.indexes()).map((i) => i.name)).toEqual(['_id_']);
    await c.insertMany([{ b: 1 }, { b: 1 }]);
    expect(await c.countDocuments({ b: 1 })).toBe(2);
  });

  it('reports NamespaceNotFound when listing indexes of a missing collection', async () => {
    const error = await serverError(target.db().command({ listIndexes: 'nope' }));
    expect(error.code).toBe(26);
    expect(error.codeName).toBe('NamespaceNotFound');
  });
});
