import { setFlagsFromString } from 'node:v8';
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

  it('keeps a copy of a document with thirty fields in fast mode, as the original', () => {
    // V8's own check; a copy filled key by key turns into a dictionary past a dozen fields, and
    // every later read of it (engine, zod, the next copy) pays hash lookups.
    setFlagsFromString('--allow-natives-syntax');
    const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;
    const original: Record<string, unknown> = {};
    for (let i = 0; i < 30; i++) original[`field${i}`] = i % 3 === 0 ? { at: new Date(i) } : `value ${i}`;
    const copy = clone(original);
    expect(copy).toEqual(original);
    expect(hasFastProperties(copy)).toBe(true);
  });

  it('copies an own __proto__ field as a field, leaving the prototype alone', () => {
    const original = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const copy = clone(original);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(copy, '__proto__')).toBe(true);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
    expect(copy['__proto__']).not.toBe(original['__proto__']);
  });
});
