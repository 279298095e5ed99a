import { runInNewContext } from 'node:vm';
import { clone } from './clone';

describe('clone', () => {
  it('copies nested objects, arrays and Dates so that changing the copy leaves the original as it was', () => {
    const original = { a: 1, nested: { list: [1, { b: 'x' }], at: new Date(5) }, none: null, missing: undefined };
    const copy = clone(original);
    expect(copy).toEqual(original);
    (copy.nested.list[1] as { b: string }).b = 'changed';
    copy.nested.at.setTime(9);
    expect(original.nested.list[1]).toEqual({ b: 'x' });
    expect(original.nested.at.getTime()).toBe(5);
    expect('missing' in copy).toBe(true);
  });

  it('keeps a Date of another realm a Date', () => {
    const foreign = runInNewContext('({ at: new Date(42) })') as { at: Date };
    expect(clone(foreign).at.getTime()).toBe(42);
  });

  it('copies what is not plain data through structuredClone', () => {
    const original = { m: new Map([['k', { v: 1 }]]) };
    const copy = clone(original);
    expect(copy.m.get('k')).toEqual({ v: 1 });
    expect(copy.m).not.toBe(original.m);
  });
});
