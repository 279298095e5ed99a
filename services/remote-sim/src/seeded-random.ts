/**
 * Where fault injection draws its dice. Injected so a run with the same seed and the same sequence
 * of calls fails the same calls, which makes a failing demo or test reproducible.
 */
export interface RandomSource {
  /** A number in [0, 1). */
  next(): number;
}

/**
 * A small, fast, seeded PRNG (mulberry32). Not for cryptography: it only needs to be reproducible
 * across runs and machines, which `Math.random` is not.
 *
 * @param seed any integer; non-integers are truncated.
 */
export function seededRandom(seed: number): RandomSource {
  let state = Math.trunc(seed) >>> 0;
  return {
    next(): number {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}
