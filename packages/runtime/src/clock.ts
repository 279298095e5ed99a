/** Time, injected into every component so a simulation can drive it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The wall clock; only `main.ts` files should construct it. */
export const systemClock: Clock = { now: () => Date.now() };
