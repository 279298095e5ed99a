import { EmbeddedMongoServer } from '@sas/embedded-mongo';
import { Long, MongoClient, MongoServerError, ObjectId, type Db } from 'mongodb';
import { embeddedStorage, removeEmbeddedStorage, serverError, waitFor } from './mongo-target';

/**
 * A primary step-down, as the services meet it. Runs against a real one-member replica set when
 * `MONGO_RS_URL` is set (`mongod --replSet rs0`, initiated), otherwise against the embedded server
 * started as the one member of `rs0`. `replSetStepDown` with `force: true` is the switch on both.
 */
const realUrl = process.env['MONGO_RS_URL'];
let server: EmbeddedMongoServer | undefined;
let seedUrl: string;
let setName: string;
const clients: MongoClient[] = [];
let dbCounter = 0;
const storage = embeddedStorage();

beforeAll(async () => {
  if (realUrl !== undefined && realUrl !== '') seedUrl = realUrl;
  else {
    server = new EmbeddedMongoServer({ replicaSet: 'rs0', ...storage });
    seedUrl = (await server.start()).url;
  }
  const probe = await connect(seedUrl);
  setName = String((await probe.db('admin').command({ hello: 1 }))['setName']);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server?.close();
  removeEmbeddedStorage(storage);
});

async function connect(url: string): Promise<MongoClient> {
  const client = await MongoClient.connect(url, { serverSelectionTimeoutMS: 15_000, writeConcern: { w: 'majority' } });
  clients.push(client);
  return client;
}

/** The seed's host:port, for a URL that discovers the set instead of connecting directly. */
function hostOf(url: string): string {
  return url.replace(/^mongodb:\/\/([^/?]+).*$/, '$1');
}

function freshDb(client: MongoClient): Db {
  dbCounter += 1;
  return client.db(`stepdown_${process.pid}_${dbCounter}`);
}

async function isPrimaryAgain(client: MongoClient): Promise<boolean> {
  return (await client.db('admin').command({ hello: 1 }))['isWritablePrimary'] === true;
}

describe('a one-member replica set', () => {
  it('names itself in hello as the primary of its set', async () => {
    const client = await connect(seedUrl);
    const hello = await client.db('admin').command({ hello: 1 });
    expect(hello).toMatchObject({ setName: expect.any(String), isWritablePrimary: true, secondary: false, ok: 1 });
    expect(hello['hosts']).toEqual([hello['me']]);
    expect(hello['primary']).toBe(hello['me']);
    expect(hello['electionId']).toBeInstanceOf(ObjectId);
  });

  it('accepts majority writes with retryable writes and reads on', async () => {
    const client = await connect(`${seedUrl}&w=majority&retryWrites=true&retryReads=true&journal=true`);
    const coll = freshDb(client).collection('majority');
    await coll.insertOne({ _id: 1 as never, n: 0 });
    await coll.findOneAndUpdate({ _id: 1 as never }, { $inc: { n: 1 } });
    expect(await coll.findOne({ _id: 1 as never })).toEqual({ _id: 1, n: 1 });
  });

  it('refuses replSetStepDown without force when no secondary can take over, and outside admin', async () => {
    const client = await connect(seedUrl);
    // A real server waits secondaryCatchUpPeriodSecs first; 1 s keeps that short.
    const refused = await serverError(client.db('admin').command({ replSetStepDown: 5, secondaryCatchUpPeriodSecs: 1 }));
    expect(refused.code).toBe(262);
    const elsewhere = await serverError(client.db('other').command({ replSetStepDown: 5, force: true }));
    expect(elsewhere.code).toBe(13);
    expect(await isPrimaryAgain(client)).toBe(true);
  });
});

describe('when the primary steps down', () => {
  it('answers a write on a direct connection with NotWritablePrimary, labelled retryable, after the driver retried it once', async () => {
    const client = await connect(seedUrl);
    const db = freshDb(client);
    const coll = db.collection('direct');
    await coll.insertOne({ _id: 'before' as never });
    const { electionId } = await client.db('admin').command({ hello: 1 });
    await client.db('admin').command({ replSetStepDown: 2, force: true });

    const hello = await client.db('admin').command({ hello: 1 });
    expect(hello).toMatchObject({ isWritablePrimary: false, secondary: true, setName });
    const error = await serverError(coll.insertOne({ _id: 'during' as never }));
    expect(error.code).toBe(10107);
    expect(error.codeName).toBe('NotWritablePrimary');
    expect(error.hasErrorLabel('RetryableWriteError')).toBe(true);
    // A direct connection may read from the secondary it now is.
    expect(await coll.find().toArray()).toEqual([{ _id: 'before' }]);

    await waitFor('the member to be elected primary again', () => isPrimaryAgain(client), 30_000, 200);
    await coll.insertOne({ _id: 'after' as never });
    expect((await coll.find().toArray()).map((d) => d._id).sort()).toEqual(['after', 'before']);
    const again = await client.db('admin').command({ hello: 1 });
    expect(again['electionId']).not.toEqual(electionId);
  });

  it('lets a client that discovers the set finish a write started during the step-down, once', async () => {
    const client = await connect(`mongodb://${hostOf(seedUrl)}/?replicaSet=${setName}`);
    const coll = freshDb(client).collection('discovered');
    await coll.insertOne({ _id: 'counter' as never, n: 0 });
    await client.db('admin').command({ replSetStepDown: 1, force: true });
    // The driver finds no primary, waits in server selection, and sends the write to the new one.
    await coll.updateOne({ _id: 'counter' as never }, { $inc: { n: 1 } });
    expect(await coll.findOne({ _id: 'counter' as never })).toEqual({ _id: 'counter', n: 1 });
  });
});

describe('a retried retryable write', () => {
  it('is answered with its first reply and applied once; an older transaction number is refused', async () => {
    const client = await connect(seedUrl);
    const db = freshDb(client);
    await db.collection('retried').insertOne({ _id: 'counter' as never, n: 0 });
    const session = client.startSession();
    try {
      const insert = { insert: 'retried', documents: [{ _id: 'once' }], txnNumber: Long.fromNumber(7) };
      const first = await db.command(insert, { session });
      const retry = await db.command(insert, { session });
      expect(retry).toMatchObject({ n: first['n'], ok: 1 });
      expect(retry['writeErrors']).toBeUndefined();

      const update = { update: 'retried', updates: [{ q: { _id: 'counter' }, u: { $inc: { n: 1 } } }], txnNumber: Long.fromNumber(8) };
      await db.command(update, { session });
      await db.command(update, { session });
      expect(await db.collection('retried').findOne({ _id: 'counter' as never })).toEqual({ _id: 'counter', n: 1 });
      expect(await db.collection('retried').countDocuments({ _id: 'once' as never })).toBe(1);

      const stale = await serverError(db.command({ ...insert, documents: [{ _id: 'stale' }] }, { session }));
      expect(stale.code).toBe(225);
      expect(stale).toBeInstanceOf(MongoServerError);
    } finally {
      await session.endSession();
    }
  });
});
