import { createHash } from 'node:crypto';
import type { Logger } from 'pino';

/** The commands {@link SessionRevocations} sends to Redis (an ioredis client has them). */
export interface RevocationRedis {
  set(key: string, value: string, px: 'PX', ms: number): Promise<unknown>;
  exists(key: string): Promise<number>;
}

/**
 * Login cookies ended by `POST /logout` before their expiry, so a copy taken before signing out
 * stops working too. A cookie is known by a hash of its MAC (unique per sign-in), kept until the
 * cookie would have expired anyway, then forgotten. Kept in the system's Redis (every replica
 * sees a sign-out) with a copy in this process, which still answers while Redis is unreachable.
 */
export class SessionRevocations {
  private readonly local = new Map<string, number>();

  /**
   * @param redis where replicas share the list; none keeps it in this process only (tests, one dashboard)
   * @param keyPrefix keys are `<keyPrefix>:signed-out:<id>`
   */
  constructor(
    private readonly now: () => number,
    private readonly redis?: RevocationRedis,
    private readonly keyPrefix = 'sas:dashboard',
    private readonly logger?: Logger,
  ) {}

  /** The id of the sign-in a login cookie value belongs to. */
  static idOf(cookieValue: string): string {
    return createHash('sha256').update(cookieValue, 'utf8').digest('hex').slice(0, 32);
  }

  /** Ends the sign-in `id` until `expiresAt` (epoch ms), when its cookie stops working anyway. */
  async revoke(id: string, expiresAt: number): Promise<void> {
    const ttl = Math.max(1, expiresAt - this.now());
    this.prune();
    this.local.set(id, expiresAt);
    try {
      await this.redis?.set(this.key(id), '1', 'PX', ttl);
    } catch (e) {
      this.logger?.warn({ err: e instanceof Error ? e.message : String(e) }, 'sign-out kept in this dashboard only: Redis is unreachable, other replicas may accept the cookie until it expires');
    }
  }

  /** Whether the sign-in `id` was ended by a sign-out. */
  async isRevoked(id: string): Promise<boolean> {
    const until = this.local.get(id);
    if (until !== undefined && until > this.now()) return true;
    if (!this.redis) return false;
    try {
      return (await this.redis.exists(this.key(id))) > 0;
    } catch {
      // Unreachable Redis: what this replica saw is all there is to go on.
      return false;
    }
  }

  private key(id: string): string {
    return `${this.keyPrefix}:signed-out:${id}`;
  }

  private prune(): void {
    const now = this.now();
    for (const [id, until] of this.local) if (until <= now) this.local.delete(id);
  }
}
