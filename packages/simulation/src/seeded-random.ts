/**
 * A seeded PRNG (mulberry32): the one source of randomness of a simulation run, and of tests that
 * act at random moments. Print the seed in every failure message so a run can be replayed.
 */
export interface SeededRandom {
  readonly seed: number;
  /** A number in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T;
}

/** A generator for `seed`; non-integers are truncated. */
export function seededRandom(seed: number): SeededRandom {
  let state = Math.trunc(seed) >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    seed: Math.trunc(seed),
    next,
    int,
    // Always draws, so whether a fault fires never changes how many numbers later choices see.
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error('pick from an empty array');
      return items[int(0, items.length - 1)] as T;
    },
  };
}

/** The seed from `SAS_TEST_SEED` when set (to replay a failure), else a fresh one. */
export function testSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env['SAS_TEST_SEED'];
  if (given !== undefined && given.trim() !== '') {
    const seed = Number(given);
    if (!Number.isInteger(seed)) throw new Error(`SAS_TEST_SEED is not an integer (got '${given}'); unset it or give the seed a failure printed`);
    return seed;
  }
  return Math.floor(Math.random() * 2 ** 31);
}
