import { useMongoTarget, waitFor } from './mongo-target';

const target = useMongoTarget();

describe('TTL indexes', () => {
  it('removes documents whose date has expired and keeps future dates and non-dates', async () => {
    const c = target.db().collection('ttl');
    await c.createIndex({ deleteTime: 1 }, { expireAfterSeconds: 0 });
    const past = new Date(Date.now() - 60_000);
    const future = new Date(Date.now() + 3_600_000);
    await c.insertMany([
      { _id: 'past', deleteTime: past },
      { _id: 'future', deleteTime: future },
      { _id: 'string', deleteTime: 'yesterday' },
      { _id: 'missing' },
      { _id: 'array', deleteTime: [future, past] },
    ] as never[]);
    await waitFor(
      'expired documents to be removed',
      async () => (await c.countDocuments()) === 3,
      target.ttlDeadlineMs,
      250,
    );
    const left = (await c.find().toArray()).map((d) => d._id).sort();
    expect(left).toEqual(['future', 'missing', 'string']);
  });

  it('honours expireAfterSeconds relative to the stored date', async () => {
    const c = target.db().collection('ttl');
    await c.createIndex({ at: 1 }, { expireAfterSeconds: 3600 });
    await c.insertMany([
      { _id: 'old', at: new Date(Date.now() - 2 * 3_600_000) },
      { _id: 'recent', at: new Date(Date.now() - 60_000) },
    ] as never[]);
    await waitFor(
      'the old document to expire',
      async () => (await c.countDocuments({ _id: 'old' } as never)) === 0,
      target.ttlDeadlineMs,
      250,
    );
    expect(await c.countDocuments({ _id: 'recent' } as never)).toBe(1);
  });
});
