/**
 * The lease semantics of `LeaseRepository` (one holder at a time, until its lease expires or it
 * gives the lease up), in memory and on the caller's clock. Satisfies by shape the leases of the
 * supervisor's sweep and of the job runner, so their tests can run a holder and a standby without
 * MongoDB.
 *
 * @example
 * ```ts
 * const lease = new InMemoryLease();
 * await lease.acquire('sweep', 'supervisor-a', new Date(t), 3000); // true
 * await lease.acquire('sweep', 'supervisor-b', new Date(t), 3000); // false until t + 3000
 * ```
 */
export class InMemoryLease {
  private readonly leases = new Map<string, { holder: string; expiresAt: number }>();

  /** Takes or renews the lease; true when `holder` holds it until `now + ttlMs`. */
  async acquire(name: string, holder: string, now: Date, ttlMs: number): Promise<boolean> {
    const current = this.leases.get(name);
    if (current && current.holder !== holder && current.expiresAt > now.getTime()) return false;
    this.leases.set(name, { holder, expiresAt: now.getTime() + ttlMs });
    return true;
  }

  /** Gives the lease up, if `holder` holds it, so a standby can take it at once. */
  async release(name: string, holder: string): Promise<void> {
    if (this.leases.get(name)?.holder === holder) this.leases.delete(name);
  }
}
