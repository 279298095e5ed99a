import { DBRef, ObjectId } from 'bson';
import { measureNesting } from './nesting-depth';

function chain(levels: number, leaf: Record<string, unknown> = {}): Record<string, unknown> {
  let doc = leaf;
  for (let level = 1; level < levels; level++) doc = { a: doc };
  return doc;
}

describe('measureNesting', () => {
  it('counts the root, every document and every array as one level', () => {
    expect(measureNesting({}, 180)).toEqual({ levels: 1, fieldLevel: 0 });
    expect(measureNesting({ a: 1 }, 180)).toEqual({ levels: 1, fieldLevel: 1 });
    expect(measureNesting({ a: [[{ b: 1 }]], c: { d: 2 } }, 180)).toEqual({ levels: 4, fieldLevel: 4 });
    expect(measureNesting({ a: { b: {} } }, 180)).toEqual({ levels: 3, fieldLevel: 2 });
  });

  it('does not count BSON values such as ObjectId or Date as levels, but counts a DBRef and what it holds', () => {
    expect(measureNesting({ a: new ObjectId(), d: new Date(0) }, 180).levels).toBe(1);
    expect(measureNesting({ r: new DBRef('c', chain(3, { x: 1 }) as never) }, 180).levels).toBe(5);
  });

  it('stops one level past the cap, however deep the value goes', () => {
    expect(measureNesting(chain(1_000_000, { x: 1 }), 180)).toEqual({ levels: 181, fieldLevel: 181 });
    expect(measureNesting(chain(181, { x: 1 }), 180)).toEqual({ levels: 181, fieldLevel: 181 });
    expect(measureNesting(chain(180, { x: 1 }), 180)).toEqual({ levels: 180, fieldLevel: 180 });
  });
});
