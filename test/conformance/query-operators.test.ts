import { Long, type Document, type Filter } from 'mongodb';
import { serverError, useMongoTarget } from './mongo-target';

const target = useMongoTarget();

const FIXTURE = [
  {
    _id: 1,
    n: 1,
    s: 'a',
    tags: ['x', 'y'],
    sub: { k: 1 },
    steps: [
      { name: 'pay', state: 'Done' },
      { name: 'ship', state: 'Running' },
    ],
    when: new Date(1000),
  },
  {
    _id: 2,
    n: 2.5,
    s: 'b',
    tags: ['y'],
    sub: { k: 2, j: 1 },
    steps: [{ name: 'pay', state: 'Running' }],
    when: new Date(2000),
  },
  { _id: 3, n: Long.fromNumber(3), s: null, tags: [], sub: { k: 1, j: 2 }, steps: [] },
  { _id: 4, n: 'str', tags: [['y']] },
  { _id: 5 },
];

async function idsMatching(filter: Filter<Document>): Promise<unknown[]> {
  const c = target.db().collection('q');
  await c.insertMany(FIXTURE as never[]);
  return (await c.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);
}

describe('query operators', () => {
  it.each<[string, Filter<Document>, number[]]>([
    ['implicit equality', { n: 1 }, [1]],
    ['equality across numeric types', { n: 3 }, [3]],
    ['equality to an array element', { tags: 'y' }, [1, 2]],
    ['equality to a whole array', { tags: ['y'] }, [2, 4]],
    ['exact sub-document equality', { sub: { k: 1 } }, [1]],
    ['a dotted path into a sub-document', { 'sub.k': 1 }, [1, 3]],
    ['a dotted path through an array of sub-documents', { 'steps.state': 'Running' }, [1, 2]],
    ['a dotted path with an array index', { 'steps.1.state': 'Running' }, [1]],
    ['null matching null and missing fields', { s: null }, [3, 4, 5]],
    ['$in with null', { s: { $in: [null, 'a'] } }, [1, 3, 4, 5]],
    ['$eq', { s: { $eq: 'b' } }, [2]],
    ['$ne including missing fields', { n: { $ne: 1 } }, [2, 3, 4, 5]],
    ['$gt on numbers only', { n: { $gt: 1 } }, [2, 3]],
    ['$gt on strings only', { n: { $gt: 'a' } }, [4]],
    ['$gte and $lt together', { n: { $gte: 1, $lt: 3 } }, [1, 2]],
    ['$lte on dates', { when: { $lte: new Date(1500) } }, [1]],
    ['$nin', { n: { $nin: [1, 2.5] } }, [3, 4, 5]],
    ['$exists true', { s: { $exists: true } }, [1, 2, 3]],
    ['$exists false', { n: { $exists: false } }, [5]],
    ['$size', { tags: { $size: 0 } }, [3]],
    ['$type by alias', { n: { $type: 'string' } }, [4]],
    [
      '$type int, double and long as stored',
      { $or: [{ n: { $type: 'int' } }, { n: { $type: 'long' } }] },
      [1, 3],
    ],
    ['$type double', { n: { $type: 'double' } }, [2]],
    ['$type number', { n: { $type: 'number' } }, [1, 2, 3]],
    ['$elemMatch on sub-documents', { steps: { $elemMatch: { name: 'pay', state: 'Running' } } }, [2]],
    ['$elemMatch on values', { tags: { $elemMatch: { $gte: 'x', $lt: 'y' } } }, [1]],
    ['$and', { $and: [{ n: { $gte: 1 } }, { s: 'a' }] }, [1]],
    ['$or', { $or: [{ n: 1 }, { s: 'b' }] }, [1, 2]],
    ['$nor', { $nor: [{ n: 1 }, { s: 'b' }] }, [3, 4, 5]],
    ['$not', { n: { $not: { $gt: 1 } } }, [1, 4, 5]],
    ['$comment alongside a filter', { n: 1, $comment: 'why' }, [1]],
  ])('matches %s', async (_name, filter, expected) => {
    expect(await idsMatching(filter)).toEqual(expected);
  });

  it('rejects an unknown field operator with BadValue', async () => {
    const error = await serverError(idsMatching({ n: { $foo: 1 } } as Filter<Document>));
    expect(error.code).toBe(2);
    expect(error.message).toContain('unknown operator: $foo');
  });

  it('rejects an unknown top-level operator with BadValue', async () => {
    const error = await serverError(idsMatching({ $foo: 1 } as Filter<Document>));
    expect(error.code).toBe(2);
    expect(error.message).toContain('unknown top level operator: $foo');
  });

  it('rejects an empty $or', async () => {
    const error = await serverError(idsMatching({ $or: [] }));
    expect(error.code).toBe(2);
    expect(error.message).toContain('nonempty array');
  });

  it('rejects $in without an array', async () => {
    const error = await serverError(idsMatching({ n: { $in: 5 } } as unknown as Filter<Document>));
    expect(error.code).toBe(2);
    expect(error.message).toContain('$in needs an array');
  });

  it('validates a filter even when the collection is empty', async () => {
    const error = await serverError(
      target
        .db()
        .collection('empty')
        .findOne({ n: { $foo: 1 } } as Filter<Document>),
    );
    expect(error.code).toBe(2);
  });
});
