import { seededRandom, testSeed } from './seeded-random';

describe('seededRandom', () => {
  it('repeats the same sequence for the same seed', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const first = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(first);
    expect(first.every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it('draws integers within the bounds, both ends included', () => {
    const r = seededRandom(7);
    const draws = Array.from({ length: 500 }, () => r.int(3, 5));
    expect(new Set(draws)).toEqual(new Set([3, 4, 5]));
  });
});

describe('testSeed', () => {
  it('takes SAS_TEST_SEED when set, to replay a failure', () => {
    expect(testSeed({ SAS_TEST_SEED: '1234' })).toBe(1234);
  });

  it('refuses a seed that is not an integer', () => {
    expect(() => testSeed({ SAS_TEST_SEED: 'abc' })).toThrow(/SAS_TEST_SEED is not an integer \(got 'abc'\)/);
  });
});
