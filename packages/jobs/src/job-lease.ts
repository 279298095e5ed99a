/**
 * A lease that lets one job runner fire jobs at a time, so schedulers do not race for every
 * firing; `@sas/store`'s `LeaseRepository` satisfies it. Correctness does not depend on it: every
 * claim is a conditional write.
 */
export interface JobLease {
  /** Takes or renews the lease; true when `holder` holds it until `now + ttlMs`. */
  acquire(name: string, holder: string, now: Date, ttlMs: number): Promise<boolean>;
  /** Gives it up so a standby takes over at once. */
  release(name: string, holder: string): Promise<void>;
}
