/**
 * A token bucket for releasing held work: `ratePerSecond` tokens accrue continuously, at most
 * `burst` are kept, and each claim of a held process takes one. Pure: time is passed in.
 */
export class ReleaseBudget {
  private tokens: number;
  private at: number | undefined;

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
  ) {
    if (!(ratePerSecond > 0)) throw new Error(`the release rate must be positive (got ${ratePerSecond}); set RELEASE_RATE to processes per second`);
    if (!(burst >= 1)) throw new Error(`the release burst must be at least 1 (got ${burst})`);
    this.tokens = burst;
  }

  /** Whole tokens available at `now` (ms), after accruing since the last call. */
  available(now: number): number {
    if (this.at !== undefined) this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) / 1000) * this.ratePerSecond);
    this.at = now;
    return Math.floor(this.tokens);
  }

  /** Spends `n` tokens (at most what is available). */
  spend(n: number): void {
    this.tokens = Math.max(0, this.tokens - n);
  }
}
