import type { MongoServerError } from 'mongodb';
import { serverError, useMongoTarget } from './mongo-target';

const target = useMongoTarget();

/**
 * Features the embedded server deliberately does not implement. Real MongoDB runs them; the
 * embedded server must refuse them loudly rather than return a wrong answer.
 */
async function refusedOnlyByEmbedded(
  run: () => Promise<unknown>,
  expectRefusal: (error: MongoServerError) => void,
): Promise<void> {
  const c = target.db().collection('u');
  await c.insertMany([
    { a: 1, s: 'abc', arr: [1, 2] },
    { a: 2, s: 'xyz', arr: [3] },
  ]);
  if (target.kind === 'real') {
    await expect(run()).resolves.toBeDefined();
    return;
  }
  expectRefusal(await serverError(run()));
}

function notImplemented(error: MongoServerError): void {
  expect(error.code).toBe(2);
  expect(error.message).toContain('not implemented by the embedded MongoDB server');
}

describe('features outside the embedded server', () => {
  const c = (): ReturnType<ReturnType<typeof target.db>['collection']> => target.db().collection('u');

  it('refuses regular expressions in filters', async () => {
    await refusedOnlyByEmbedded(() => c().find({ s: /^ab/ }).toArray(), notImplemented);
  });

  it('refuses $expr', async () => {
    await refusedOnlyByEmbedded(
      () =>
        c()
          .find({ $expr: { $gt: ['$a', 1] } })
          .toArray(),
      notImplemented,
    );
  });

  it('refuses update operators it does not implement', async () => {
    await refusedOnlyByEmbedded(
      () => c().updateOne({ a: 1 }, { $pull: { arr: 1 } } as never),
      notImplemented,
    );
  });

  it('refuses pipeline-style updates', async () => {
    await refusedOnlyByEmbedded(() => c().updateOne({ a: 1 }, [{ $set: { b: '$a' } }]), notImplemented);
  });

  it('refuses positional updates', async () => {
    await refusedOnlyByEmbedded(() => c().updateOne({ arr: 1 }, { $set: { 'arr.$': 9 } }), notImplemented);
  });

  it('refuses aggregation stages it does not implement with code 40324', async () => {
    await refusedOnlyByEmbedded(
      () =>
        c()
          .aggregate([{ $lookup: { from: 'other', localField: 'a', foreignField: 'a', as: 'joined' } }])
          .toArray(),
      (error) => {
        expect(error.code).toBe(40324);
        expect(error.message).toContain("Unrecognized pipeline stage name: '$lookup'");
      },
    );
  });

  it('refuses collations', async () => {
    await refusedOnlyByEmbedded(
      () =>
        c()
          .find({ s: 'ABC' }, { collation: { locale: 'en', strength: 2 } })
          .toArray(),
      notImplemented,
    );
  });
});
