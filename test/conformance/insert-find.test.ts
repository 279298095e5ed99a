import { Long, MongoBulkWriteError, ObjectId } from 'mongodb';

/** Cursor ids are int64; real servers use values beyond 2^53, so compare them as Long strings. */
function cursorId(value: unknown): Long {
  return Long.fromValue(value as Long | number);
}
import { serverError, useMongoTarget } from './mongo-target';

const target = useMongoTarget();

describe('insert and find', () => {
  it('returns documents in insertion order when no sort is given', async () => {
    const c = target.db().collection('items');
    await c.insertMany([{ _id: 3 }, { _id: 1 }, { _id: 2 }] as never[]);
    expect((await c.find().toArray()).map((d) => d._id)).toEqual([3, 1, 2]);
  });

  it('generates an ObjectId _id on the server when the client does not', async () => {
    const c = target.db().collection('items');
    await c.insertOne({ a: 1 }, { forceServerObjectId: true });
    const doc = await c.findOne({ a: 1 });
    expect(doc?._id).toBeInstanceOf(ObjectId);
  });

  it('rejects a duplicate _id with E11000 on the _id_ index', async () => {
    const c = target.db().collection('items');
    await c.insertOne({ _id: 'k' } as never);
    const error = await serverError(c.insertOne({ _id: 'k' } as never));
    expect(error.code).toBe(11000);
    expect(error.message).toContain(
      `E11000 duplicate key error collection: ${c.namespace} index: _id_ dup key`,
    );
  });

  it('stops an ordered insert at the first duplicate and continues an unordered one', async () => {
    const c = target.db().collection('items');
    const docs = [{ _id: 1 }, { _id: 1 }, { _id: 2 }] as never[];
    const ordered = await c.insertMany(docs).catch((e: unknown) => e);
    expect(ordered).toBeInstanceOf(MongoBulkWriteError);
    expect((ordered as MongoBulkWriteError).insertedCount).toBe(1);
    expect((ordered as MongoBulkWriteError).writeErrors).toMatchObject([{ index: 1, code: 11000 }]);
    await c.deleteMany({});
    const unordered = await c.insertMany(docs, { ordered: false }).catch((e: unknown) => e);
    expect((unordered as MongoBulkWriteError).insertedCount).toBe(2);
    expect(await c.countDocuments()).toBe(2);
  });

  it('sorts by several keys, then skips and limits', async () => {
    const c = target.db().collection('items');
    await c.insertMany([
      { _id: 1, g: 'b', n: 1 },
      { _id: 2, g: 'a', n: 2 },
      { _id: 3, g: 'b', n: 3 },
      { _id: 4, g: 'a', n: 1 },
      { _id: 5, g: 'c', n: 0 },
    ] as never[]);
    const ids = async (skip: number, limit: number): Promise<unknown[]> =>
      (await c.find().sort({ g: 1, n: -1 }).skip(skip).limit(limit).toArray()).map((d) => d._id);
    expect(await ids(0, 0)).toEqual([2, 4, 3, 1, 5]);
    expect(await ids(1, 3)).toEqual([4, 3, 1]);
  });

  it('sorts mixed types in BSON order, with missing and null first', async () => {
    const c = target.db().collection('items');
    await c.insertMany([
      { _id: 1, v: 'text' },
      { _id: 2, v: 10 },
      { _id: 3 },
      { _id: 4, v: new Date(0) },
      { _id: 5, v: true },
      { _id: 6, v: Long.fromNumber(5) },
      { _id: 7, v: 7.5 },
    ] as never[]);
    const ids = (await c.find().sort({ v: 1 }).toArray()).map((d) => d._id);
    expect(ids).toEqual([3, 6, 7, 2, 1, 5, 4]);
  });

  it('projects by inclusion keeping _id, and by exclusion', async () => {
    const c = target.db().collection('items');
    await c.insertOne({ _id: 1, a: 1, b: { c: 2, d: 3 }, e: 4 } as never);
    expect(await c.findOne({}, { projection: { a: 1, 'b.c': 1 } })).toEqual({ _id: 1, a: 1, b: { c: 2 } });
    expect(await c.findOne({}, { projection: { a: 1, _id: 0 } })).toEqual({ a: 1 });
    expect(await c.findOne({}, { projection: { b: 0, e: 0 } })).toEqual({ _id: 1, a: 1 });
  });

  it('rejects a projection that mixes inclusion and exclusion', async () => {
    const c = target.db().collection('items');
    await c.insertOne({ a: 1 });
    const error = await serverError(c.findOne({}, { projection: { a: 1, b: 0 } }));
    expect(error.code).toBe(31254);
    expect(error.message).toContain('Cannot do exclusion on field b in inclusion projection');
  });

  it('returns a single batch for a negative limit', async () => {
    const c = target.db().collection('items');
    await c.insertMany(Array.from({ length: 20 }, (_, i) => ({ i })));
    expect(await c.find().sort({ i: 1 }).limit(-5).toArray()).toHaveLength(5);
  });

  it('returns nothing from a collection that does not exist', async () => {
    expect(await target.db().collection('missing').find({ a: 1 }).toArray()).toEqual([]);
  });
});

describe('cursors', () => {
  it('hands out a large result over several getMore batches', async () => {
    const db = target.db();
    await db.collection('many').insertMany(Array.from({ length: 250 }, (_, i) => ({ i })));
    const first = await db.command({ find: 'many', sort: { i: 1 }, batchSize: 100 });
    expect(first['cursor'].firstBatch).toHaveLength(100);
    const id = cursorId(first['cursor'].id);
    expect(id.isZero()).toBe(false);
    const seen: number[] = first['cursor'].firstBatch.map((d: { i: number }) => d.i);
    const second = await db.command({ getMore: id, collection: 'many', batchSize: 100 });
    expect(second['cursor'].nextBatch).toHaveLength(100);
    seen.push(...second['cursor'].nextBatch.map((d: { i: number }) => d.i));
    const third = await db.command({ getMore: id, collection: 'many', batchSize: 100 });
    seen.push(...third['cursor'].nextBatch.map((d: { i: number }) => d.i));
    expect(cursorId(third['cursor'].id).isZero()).toBe(true);
    expect(seen).toEqual(Array.from({ length: 250 }, (_, i) => i));
    const error = await serverError(db.command({ getMore: id, collection: 'many' }));
    expect(error.code).toBe(43);
    expect(error.codeName).toBe('CursorNotFound');
  });

  it('iterates a driver cursor across batches', async () => {
    const c = target.db().collection('many');
    await c.insertMany(Array.from({ length: 230 }, (_, i) => ({ i })));
    let total = 0;
    for await (const doc of c.find({}, { batchSize: 25 }).sort({ i: -1 })) {
      expect(doc['i']).toBe(229 - total);
      total++;
    }
    expect(total).toBe(230);
  });

  it('forgets a killed cursor', async () => {
    const db = target.db();
    await db.collection('many').insertMany(Array.from({ length: 10 }, (_, i) => ({ i })));
    const first = await db.command({ find: 'many', batchSize: 2 });
    const id = cursorId(first['cursor'].id);
    const killed = await db.command({ killCursors: 'many', cursors: [id] });
    expect(killed['cursorsKilled'].map((v: unknown) => cursorId(v).toString())).toEqual([id.toString()]);
    const error = await serverError(db.command({ getMore: id, collection: 'many' }));
    expect(error.code).toBe(43);
  });
});
