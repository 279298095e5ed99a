import { Projection } from './projection';

const doc = { _id: 1, a: 1, b: { c: 2, d: 3 }, list: [{ x: 1, y: 2 }, 5], e: 4 };

describe('Projection', () => {
  it('includes listed paths in document order, with _id unless excluded', () => {
    expect(Projection.compile({ e: 1, 'b.c': 1 })?.apply(doc)).toEqual({ _id: 1, b: { c: 2 }, e: 4 });
    expect(Projection.compile({ a: 1, _id: 0 })?.apply(doc)).toEqual({ a: 1 });
    expect(Projection.compile({ 'list.x': 1 })?.apply(doc)).toEqual({ _id: 1, list: [{ x: 1 }] });
  });

  it('excludes listed paths and keeps the rest', () => {
    expect(Projection.compile({ b: 0, list: 0, e: 0 })?.apply(doc)).toEqual({ _id: 1, a: 1 });
    expect(Projection.compile({ 'list.y': 0, _id: 0, b: 0 })?.apply(doc)).toEqual({
      a: 1,
      list: [{ x: 1 }, 5],
      e: 4,
    });
  });

  it('rejects mixing inclusion and exclusion, and path collisions', () => {
    expect(() => Projection.compile({ a: 1, b: 0 })).toThrow(
      'Cannot do exclusion on field b in inclusion projection',
    );
    expect(() => Projection.compile({ a: 0, b: 1 })).toThrow(
      'Cannot do inclusion on field b in exclusion projection',
    );
    expect(() => Projection.compile({ b: 1, 'b.c': 1 })).toThrow('Path collision');
  });

  it('refuses computed and positional projections', () => {
    expect(() => Projection.compile({ a: '$b' })).toThrow('not implemented');
    expect(() => Projection.compile({ 'list.$': 1 })).toThrow('not implemented');
  });
});
