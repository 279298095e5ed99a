import { serverError, useMongoTarget } from './mongo-target';

const target = useMongoTarget();

describe('connection and administrative commands', () => {
  it('answers ping with ok 1', async () => {
    expect(await target.db().command({ ping: 1 })).toMatchObject({ ok: 1 });
  });

  it('reports a writable primary with MongoDB size limits in hello', async () => {
    const hello = await target.db().admin().command({ hello: 1 });
    expect(hello).toMatchObject({ isWritablePrimary: true, maxBsonObjectSize: 16777216, ok: 1 });
    expect(hello['maxWireVersion']).toBeGreaterThanOrEqual(17);
    expect(hello['logicalSessionTimeoutMinutes']).toEqual(expect.any(Number));
  });

  it('reports a version string in buildInfo', async () => {
    const info = await target.db().admin().command({ buildInfo: 1 });
    expect(info['version']).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('reports the feature compatibility version through getParameter', async () => {
    const reply = await target.db().admin().command({ getParameter: 1, featureCompatibilityVersion: 1 });
    expect(reply['featureCompatibilityVersion']).toEqual({ version: expect.any(String) });
  });

  it('counts commands by name in serverStatus, as the benchmark reads them', async () => {
    const db = target.db();
    const totalOf = (status: Record<string, unknown>, name: string): number => {
      const commands = (status['metrics'] as { commands?: Record<string, { total?: unknown }> } | undefined)?.commands;
      return Number(commands?.[name]?.total ?? 0);
    };
    const before = await db.admin().command({ serverStatus: 1 });
    await db.collection('counted').insertOne({ a: 1 });
    await db.collection('counted').updateOne({ a: 1 }, { $set: { b: 2 } });
    await db.collection('counted').findOne({ a: 1 });
    const after = await db.admin().command({ serverStatus: 1 });
    expect(totalOf(after, 'insert') - totalOf(before, 'insert')).toBe(1);
    expect(totalOf(after, 'update') - totalOf(before, 'update')).toBe(1);
    expect(totalOf(after, 'find') - totalOf(before, 'find')).toBe(1);
    expect(Number((after['opcounters'] as Record<string, unknown>)['insert'])).toBeGreaterThanOrEqual(1);
  });

  it('rejects an unknown command with CommandNotFound', async () => {
    const error = await serverError(target.db().command({ notACommand: 1 }));
    expect(error.code).toBe(59);
    expect(error.codeName).toBe('CommandNotFound');
    expect(error.message).toContain("no such command: 'notACommand'");
  });

  it('creates databases and collections implicitly on first insert', async () => {
    const db = target.db();
    expect(await db.listCollections().toArray()).toEqual([]);
    await db.collection('implicit').insertOne({ a: 1 });
    const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    expect(names).toEqual(['implicit']);
  });

  it('creates a collection explicitly and refuses to create it twice', async () => {
    const db = target.db();
    await db.createCollection('explicit');
    const listed = await db.listCollections({ name: 'explicit' }).toArray();
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ name: 'explicit', type: 'collection' });
    const error = await serverError(db.command({ create: 'explicit' }));
    expect(error.code).toBe(48);
    expect(error.codeName).toBe('NamespaceExists');
  });

  it('filters listCollections by name', async () => {
    const db = target.db();
    await db.collection('one').insertOne({});
    await db.collection('two').insertOne({});
    const listed = await db.listCollections({ name: 'two' }).toArray();
    expect(listed.map((c) => c.name)).toEqual(['two']);
  });

  it('drops a collection with its documents', async () => {
    const db = target.db();
    await db.collection('gone').insertMany([{ a: 1 }, { a: 2 }]);
    expect(await db.collection('gone').drop()).toBe(true);
    expect(await db.listCollections({ name: 'gone' }).toArray()).toEqual([]);
    expect(await db.collection('gone').countDocuments()).toBe(0);
  });

  it('drops a database with all its collections', async () => {
    const db = target.db();
    await db.collection('a').insertOne({});
    await db.collection('b').insertOne({});
    await db.dropDatabase();
    expect(await db.listCollections().toArray()).toEqual([]);
  });
});
