import { CommandError } from '../errors/command-error';
import { Sorter } from './sorter';

describe('Sorter', () => {
  it('sorts by several keys with directions, keeping natural order for ties', () => {
    const docs = [
      { _id: 1, g: 'b', n: 1 },
      { _id: 2, g: 'a', n: 1 },
      { _id: 3, g: 'b', n: 2 },
      { _id: 4, g: 'a', n: 1 },
    ];
    const sorted = Sorter.compile({ g: 1, n: -1 })?.sort(docs) ?? [];
    expect(sorted.map((d) => d._id)).toEqual([2, 4, 3, 1]);
  });

  it('sorts arrays by their smallest element ascending and largest descending', () => {
    const docs = [
      { _id: 1, v: [5, 1] },
      { _id: 2, v: 3 },
      { _id: 3, v: [2, 9] },
    ];
    expect(
      Sorter.compile({ v: 1 })
        ?.sort(docs)
        .map((d) => d._id),
    ).toEqual([1, 3, 2]);
    expect(
      Sorter.compile({ v: -1 })
        ?.sort(docs)
        .map((d) => d._id),
    ).toEqual([3, 1, 2]);
  });

  it('puts missing fields first ascending', () => {
    const docs = [{ _id: 1, v: 0 }, { _id: 2 }];
    expect(
      Sorter.compile({ v: 1 })
        ?.sort(docs)
        .map((d) => d._id),
    ).toEqual([2, 1]);
  });

  it('means natural order for an empty spec and rejects directions other than 1 and -1', () => {
    expect(Sorter.compile({})).toBeUndefined();
    expect(() => Sorter.compile({ a: 2 })).toThrow(CommandError);
    expect(() => Sorter.compile({ a: { $meta: 'textScore' } })).toThrow('not implemented');
  });
});
