/** A lease that lets one supervisor sweep at a time (implemented by `LeaseRepository`). */
export interface SweepLease {
  acquire(name: string, holder: string, now: Date, ttlMs: number): Promise<boolean>;
  release(name: string, holder: string): Promise<void>;
}
