import { seededRandom } from './seeded-random';

function draw(seed: number, n: number): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () => random.next());
}

describe('seededRandom', () => {
  it('yields the same sequence for the same seed', () => {
    expect(draw(42, 20)).toEqual(draw(42, 20));
  });

  it('yields a different sequence for a different seed', () => {
    expect(draw(42, 20)).not.toEqual(draw(43, 20));
  });

  it('stays within [0, 1) and spreads over the interval', () => {
    const values = draw(7, 2000);
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    expect(values.filter((v) => v < 0.5).length).toBeGreaterThan(800);
    expect(values.filter((v) => v >= 0.5).length).toBeGreaterThan(800);
  });
});
