import { serverError, useMongoTarget } from './mongo-target';

const target = useMongoTarget();

async function seed(): Promise<void> {
  await target
    .db()
    .collection('a')
    .insertMany([
      { _id: 1, g: 'x', n: 1, tags: ['p', 'q'] },
      { _id: 2, g: 'y', n: 2, tags: ['q'] },
      { _id: 3, g: 'x', n: 3 },
      { _id: 4, g: 'z', n: 'not a number', tags: 'r' },
      { _id: 5, n: 5 },
    ] as never[]);
}

describe('count, countDocuments and distinct', () => {
  it('counts matching documents with skip and limit', async () => {
    await seed();
    const c = target.db().collection('a');
    expect(await c.countDocuments()).toBe(5);
    expect(await c.countDocuments({ g: 'x' })).toBe(2);
    expect(await c.countDocuments({}, { skip: 1, limit: 3 })).toBe(3);
    expect(await c.countDocuments({}, { skip: 4 })).toBe(1);
    expect(await target.db().collection('missing').countDocuments()).toBe(0);
  });

  it('estimates the collection size with count', async () => {
    await seed();
    expect(await target.db().collection('a').estimatedDocumentCount()).toBe(5);
    expect((await target.db().command({ count: 'a', query: { n: { $gte: 2 } } }))['n']).toBe(3);
  });

  it('lists distinct values, opening arrays and skipping missing fields', async () => {
    await seed();
    const c = target.db().collection('a');
    expect((await c.distinct('g')).sort()).toEqual(['x', 'y', 'z']);
    expect((await c.distinct('tags')).sort()).toEqual(['p', 'q', 'r']);
    expect(await c.distinct('g', { n: { $lt: 3 } })).toEqual(expect.arrayContaining(['x', 'y']));
  });
});

describe('aggregate', () => {
  it('runs $match, $sort, $skip, $limit and $project', async () => {
    await seed();
    const out = await target
      .db()
      .collection('a')
      .aggregate([
        { $match: { n: { $type: 'number' } } },
        { $sort: { n: -1 } },
        { $skip: 1 },
        { $limit: 2 },
        { $project: { n: 1, _id: 0 } },
      ])
      .toArray();
    expect(out).toEqual([{ n: 3 }, { n: 2 }]);
  });

  it('groups by a field and sums constants and fields', async () => {
    await seed();
    const out = await target
      .db()
      .collection('a')
      .aggregate([
        { $group: { _id: '$g', count: { $sum: 1 }, total: { $sum: '$n' } } },
        { $sort: { _id: 1 } },
      ])
      .toArray();
    expect(out).toEqual([
      { _id: null, count: 1, total: 5 },
      { _id: 'x', count: 2, total: 4 },
      { _id: 'y', count: 1, total: 2 },
      { _id: 'z', count: 1, total: 0 },
    ]);
  });

  it('groups everything under a constant _id', async () => {
    await seed();
    const out = await target
      .db()
      .collection('a')
      .aggregate([{ $group: { _id: 1, n: { $sum: 1 } } }])
      .toArray();
    expect(out).toEqual([{ _id: 1, n: 5 }]);
  });

  it('returns nothing for a collection that does not exist', async () => {
    expect(
      await target
        .db()
        .collection('missing')
        .aggregate([{ $match: {} }])
        .toArray(),
    ).toEqual([]);
  });

  it('rejects an unknown stage with code 40324', async () => {
    await seed();
    const error = await serverError(
      target
        .db()
        .collection('a')
        .aggregate([{ $frobnicate: {} }])
        .toArray(),
    );
    expect(error.code).toBe(40324);
    expect(error.message).toContain("Unrecognized pipeline stage name: '$frobnicate'");
  });

  it('rejects a non-positive $limit', async () => {
    await seed();
    const error = await serverError(
      target
        .db()
        .collection('a')
        .aggregate([{ $limit: 0 }])
        .toArray(),
    );
    expect(error.code).toBe(15958);
  });
});
