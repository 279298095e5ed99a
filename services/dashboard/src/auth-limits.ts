import { createHash } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** How many failed credentials are allowed, over what window, and how long a key is then blocked. */
export interface AuthLimitsOptions {
  /** Failed credentials allowed per client address, and per token prefix, within the window. */
  failures: number;
  windowMs: number;
  /** How long an address or prefix is refused once it went past `failures`. */
  blockMs: number;
}

/** Failed credentials allowed per address and per token prefix: 20 per 10 minutes, then 15 minutes refused. */
export const DEFAULT_AUTH_LIMITS: AuthLimitsOptions = { failures: 20, windowMs: 10 * 60_000, blockMs: 15 * 60_000 };

/** Characters of a presented token that key the per-prefix count (hashed before use). */
export const TOKEN_PREFIX_LENGTH = 8;

const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
const hashed = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 32);

/**
 * Counts failed credentials per client address and per token prefix with `rate-limiter-flexible`,
 * and says when either is over its limit. Only failures count: a signed-in operator's requests
 * never do. The prefix is hashed before it becomes a key, so Redis never holds part of a token.
 *
 * On Redis (see {@link AuthLimits.onRedis}) every dashboard replica shares the counts; an
 * in-memory limiter of the same settings stands in while Redis is unreachable, so a Redis outage
 * neither opens the door to guessing nor locks everyone out.
 */
export class AuthLimits {
  constructor(
    private readonly byAddress: RateLimiterAbstract,
    private readonly byPrefix: RateLimiterAbstract,
    private readonly options: AuthLimitsOptions,
  ) {}

  /** Limits kept in Redis under `<keyPrefix>:auth-address:` and `<keyPrefix>:auth-prefix:`. */
  static onRedis(storeClient: unknown, keyPrefix: string, options: AuthLimitsOptions): AuthLimits {
    const make = (kind: string): RateLimiterAbstract =>
      new RateLimiterRedis({
        storeClient,
        keyPrefix: `${keyPrefix}:${kind}`,
        points: options.failures,
        duration: seconds(options.windowMs),
        blockDuration: seconds(options.blockMs),
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory({ points: options.failures, duration: seconds(options.windowMs), blockDuration: seconds(options.blockMs) }),
      });
    return new AuthLimits(make('auth-address'), make('auth-prefix'), options);
  }

  /** Limits kept in this process only (tests, a single dashboard). */
  static inMemory(options: AuthLimitsOptions): AuthLimits {
    const make = (): RateLimiterAbstract => new RateLimiterMemory({ points: options.failures, duration: seconds(options.windowMs), blockDuration: seconds(options.blockMs) });
    return new AuthLimits(make(), make(), options);
  }

  /** How long until this address (or this token's prefix) may try again, or `undefined` when it may now. */
  async blockedFor(address: string, token?: string): Promise<number | undefined> {
    const checks = [this.byAddress.get(address), ...(token !== undefined ? [this.byPrefix.get(prefixKey(token))] : [])];
    const waits = (await Promise.all(checks)).filter((r): r is RateLimiterRes => r !== null && r.consumedPoints > this.options.failures).map((r) => r.msBeforeNext);
    return waits.length > 0 ? Math.max(...waits) : undefined;
  }

  /** Counts one failed credential; returns how long to wait when this failure went past a limit. */
  async failed(address: string, token?: string): Promise<number | undefined> {
    const results = await Promise.all([count(this.byAddress, address), ...(token !== undefined ? [count(this.byPrefix, prefixKey(token))] : [])]);
    const waits = results.filter((w): w is number => w !== undefined);
    return waits.length > 0 ? Math.max(...waits) : undefined;
  }
}

function prefixKey(token: string): string {
  return hashed(token.slice(0, TOKEN_PREFIX_LENGTH));
}

/** Consumes one point; the limiter rejects with a `RateLimiterRes` past the limit (and with an Error when its store fails). */
async function count(limiter: RateLimiterAbstract, key: string): Promise<number | undefined> {
  try {
    await limiter.consume(key);
    return undefined;
  } catch (e) {
    if (e instanceof RateLimiterRes) return e.msBeforeNext;
    throw e;
  }
}
