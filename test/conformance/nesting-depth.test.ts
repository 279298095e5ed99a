import { MongoBulkWriteError, type Collection, type Document } from 'mongodb';
import { serverError, useMongoTarget } from './mongo-target';

const target = useMongoTarget();

/**
 * MongoDB stores user documents nested at most 180 levels deep (`maxBSONDepth` 200 minus the 20
 * levels it keeps for commands and oplog entries); its documentation promises 100. The root
 * document is level 1 and every embedded document or array adds one.
 */
const STORAGE_LIMIT = 180;

/** A document `levels` deep counting the root, with a field at its innermost level: `{ a: { a: ... { leaf: 1 } } }`. */
function nested(levels: number): Document {
  let doc: Document = { leaf: 1 };
  for (let level = 1; level < levels; level++) doc = { a: doc };
  return doc;
}

/** Levels of the deepest chain of documents and arrays in `value` (0 for a scalar). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [node, level] = item;
    if (typeof node !== 'object' || node === null || node instanceof Date) continue;
    if (!Array.isArray(node) && Object.getPrototypeOf(node) !== Object.prototype) continue;
    deepest = Math.max(deepest, level);
    for (const child of Object.values(node)) stack.push([child, level + 1]);
  }
  return deepest;
}

/** Documents of these tests: any `_id`, any fields. */
interface Deep {
  _id: number | string;
  [field: string]: unknown;
}

function collection(): Collection<Deep> {
  return target.db().collection<Deep>('deep');
}

describe('when a document nears the nesting limit', () => {
  it('stores a document exactly at the limit and reads it back intact', async () => {
    const c = collection();
    const doc = { _id: 1, ...nested(STORAGE_LIMIT) };
    await c.insertOne(doc);
    const back = await c.findOne({ _id: 1 });
    expect(depthOf(back)).toBe(STORAGE_LIMIT);
    expect(back).toEqual(doc);
  });

  it('refuses an insert one level deeper with Overflow (15) as a write error, storing nothing', async () => {
    const c = collection();
    const error = await serverError(c.insertOne({ _id: 1, ...nested(STORAGE_LIMIT + 1) }));
    expect(error.code).toBe(15);
    expect(error.message).toBe(
      `cannot insert document because it exceeds ${STORAGE_LIMIT} levels of nesting`,
    );
    expect(await c.countDocuments()).toBe(0);
  });

  it('counts arrays as levels too', async () => {
    const c = collection();
    let value: unknown = [1];
    for (let level = 2; level < STORAGE_LIMIT; level++) value = [value];
    await c.insertOne({ _id: 'at', v: value });
    const error = await serverError(c.insertOne({ _id: 'over', v: [value] }));
    expect(error.code).toBe(15);
    expect(depthOf(await c.findOne({ _id: 'at' }))).toBe(STORAGE_LIMIT);
    expect(await c.countDocuments()).toBe(1);
  });

  it('stops an ordered insertMany at the too-deep document and lets an unordered one carry on', async () => {
    const c = collection();
    const docs = [{ _id: 1 }, { _id: 2, ...nested(STORAGE_LIMIT + 1) }, { _id: 3 }];
    const ordered = await c.insertMany(docs).catch((e: unknown) => e);
    expect(ordered).toBeInstanceOf(MongoBulkWriteError);
    expect((ordered as MongoBulkWriteError).writeErrors).toMatchObject([{ index: 1, code: 15 }]);
    expect(await c.distinct('_id')).toEqual([1]);
    await c.deleteMany({});
    const unordered = await c.insertMany(docs, { ordered: false }).catch((e: unknown) => e);
    expect((unordered as MongoBulkWriteError).writeErrors).toMatchObject([{ index: 1, code: 15 }]);
    expect(await c.distinct('_id')).toEqual([1, 3]);
  });
});

describe('when an update would nest a document past the limit', () => {
  const overflow = `Document exceeds maximum nesting depth of ${STORAGE_LIMIT}`;

  it('refuses $set of a value that is one level too deep and leaves the document as it was', async () => {
    const c = collection();
    await c.insertOne({ _id: 1, n: 0 });
    await c.updateOne({ _id: 1 }, { $set: { v: nested(STORAGE_LIMIT - 1) } });
    expect(depthOf(await c.findOne({ _id: 1 }))).toBe(STORAGE_LIMIT);
    const error = await serverError(c.updateOne({ _id: 1 }, { $set: { v: nested(STORAGE_LIMIT) } }));
    expect(error.code).toBe(15);
    expect(error.message).toBe(overflow);
    expect(depthOf(await c.findOne({ _id: 1 }))).toBe(STORAGE_LIMIT);
  });

  it('refuses $push of an element that makes the array one level too deep', async () => {
    const c = collection();
    await c.insertOne({ _id: 1, list: [] });
    // The driver's typings accept $push only on fields typed as arrays; the server does not care.
    const push = (element: Document): Document => ({ $push: { list: element } });
    await c.updateOne({ _id: 1 }, push(nested(STORAGE_LIMIT - 2)));
    const error = await serverError(c.updateOne({ _id: 1 }, push(nested(STORAGE_LIMIT - 1))));
    expect(error.code).toBe(15);
    expect(error.message).toBe(overflow);
    expect(depthOf(await c.findOne({ _id: 1 }))).toBe(STORAGE_LIMIT);
  });

  it('refuses $set on a dotted path deep inside a document already at the limit', async () => {
    const c = collection();
    await c.insertOne({ _id: 1, ...nested(STORAGE_LIMIT) });
    const innermost = Array.from({ length: STORAGE_LIMIT - 1 }, () => 'a').join('.');
    await c.updateOne({ _id: 1 }, { $set: { [`${innermost}.leaf`]: 2 } });
    const error = await serverError(c.updateOne({ _id: 1 }, { $set: { [`${innermost}.leaf`]: { x: 1 } } }));
    expect(error.code).toBe(15);
    expect(error.message).toBe(overflow);
    expect(depthOf(await c.findOne({ _id: 1 }))).toBe(STORAGE_LIMIT);
  });

  it('refuses a replacement one level too deep', async () => {
    const c = collection();
    await c.insertOne({ _id: 1, n: 0 });
    await c.replaceOne({ _id: 1 }, nested(STORAGE_LIMIT));
    const error = await serverError(c.replaceOne({ _id: 1 }, nested(STORAGE_LIMIT + 1)));
    expect(error.code).toBe(15);
    expect(error.message).toBe(overflow);
    expect(depthOf(await c.findOne({ _id: 1 }))).toBe(STORAGE_LIMIT);
  });

  it('refuses an upsert by operators or by replacement that would insert a too-deep document', async () => {
    const c = collection();
    const byOperator = await serverError(
      c.updateOne({ _id: 1 }, { $set: { v: nested(STORAGE_LIMIT) } }, { upsert: true }),
    );
    expect(byOperator.code).toBe(15);
    expect(byOperator.message).toBe(overflow);
    const byReplacement = await serverError(
      c.replaceOne({ _id: 2 }, nested(STORAGE_LIMIT + 1), { upsert: true }),
    );
    expect(byReplacement.code).toBe(15);
    expect(byReplacement.message).toBe(overflow);
    expect(await c.countDocuments()).toBe(0);
    await c.updateOne({ _id: 1 }, { $set: { v: nested(STORAGE_LIMIT - 1) } }, { upsert: true });
    expect(depthOf(await c.findOne({ _id: 1 }))).toBe(STORAGE_LIMIT);
  });

  it('fails findAndModify as a command error with Overflow, for updates, replacements and upserts', async () => {
    const c = collection();
    await c.insertOne({ _id: 1, n: 0 });
    const attempts = [
      () => c.findOneAndUpdate({ _id: 1 }, { $set: { v: nested(STORAGE_LIMIT) } }),
      () => c.findOneAndReplace({ _id: 1 }, nested(STORAGE_LIMIT + 1)),
      () => c.findOneAndUpdate({ _id: 2 }, { $set: { v: nested(STORAGE_LIMIT) } }, { upsert: true }),
    ];
    for (const attempt of attempts) {
      const error = await serverError(attempt());
      expect({ code: error.code, codeName: error.codeName, message: error.message }).toEqual({
        code: 15,
        codeName: 'Overflow',
        message: overflow,
      });
    }
    expect(await c.find().toArray()).toEqual([{ _id: 1, n: 0 }]);
    const after = await c.findOneAndUpdate(
      { _id: 1 },
      { $set: { v: nested(STORAGE_LIMIT - 1) } },
      { returnDocument: 'after' },
    );
    expect(depthOf(after)).toBe(STORAGE_LIMIT);
  });
});

describe('when a command is nested deeper than any BSON the server accepts', () => {
  it('answers Overflow (15) for the command and keeps the connection serving', async () => {
    const c = collection();
    const error = await serverError(c.insertOne({ _id: 1, ...nested(1_000) }));
    expect(error.code).toBe(15);
    expect(error.codeName).toBe('Overflow');
    expect(error.message).toContain('BSONObj exceeds maximum nested object depth');
    const filterError = await serverError(c.findOne({ a: nested(1_000) }));
    expect(filterError.code).toBe(15);
    expect(await target.db().command({ ping: 1 })).toMatchObject({ ok: 1 });
    expect(await c.countDocuments()).toBe(0);
  });
});
