import { createHash, timingSafeEqual } from 'node:crypto';
import { systemClock, type Clock } from '@sas/runtime';
import { z } from 'zod';
import { DEFAULT_SESSION_TTL_MS, LoginCookie } from './login-cookie';
import { TOKEN_RECIPE, tokenStrength } from './token-strength';

/** `viewer` reads (GET, the page, bull-board read-only); `operator` also resubmits, cancels and retries. */
export const DashboardRole = z.enum(['viewer', 'operator']);
export type DashboardRole = z.infer<typeof DashboardRole>;

/**
 * One `DASHBOARD_TOKENS` entry, `role:token` or `role:name:token`. Messages never repeat the
 * token, so a configuration error cannot leak it into a log.
 */
export const DashboardTokenEntry = z.string().transform((entry, ctx) => {
  const parts = entry.split(':');
  const role = DashboardRole.safeParse(parts[0]?.trim());
  if (!role.success || parts.length < 2 || parts.length > 3) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message:
        'each DASHBOARD_TOKENS entry must be role:token or role:name:token with role viewer or operator, e.g. operator:alice:<token>',
    });
    return z.NEVER;
  }
  const name = parts.length === 3 ? parts[1]!.trim() : undefined;
  const token = parts.at(-1)!.trim();
  if (name !== undefined && !/^[A-Za-z0-9_.@-]{1,60}$/.test(name)) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: 'a DASHBOARD_TOKENS name must be 1-60 letters, digits or _ . @ -',
    });
    return z.NEVER;
  }
  const strength = tokenStrength(token);
  if (strength.weakness !== undefined) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: `the ${role.data}${name !== undefined ? ` (${name})` : ''} token is too weak: ${strength.weakness}; ${TOKEN_RECIPE}`,
    });
    return z.NEVER;
  }
  return { role: role.data, token, ...(name !== undefined ? { name } : {}) };
});
export type DashboardTokenEntry = z.infer<typeof DashboardTokenEntry>;

/** Who made a request: the role and the id the process history records (`operator:alice`, `viewer:3fa9c1`). */
export interface DashboardPrincipal {
  role: DashboardRole;
  id: string;
}

interface Known {
  principal: DashboardPrincipal;
  /** SHA-256 of the token: compared with a bearer token's digest, and the login cookie's MAC key. */
  digest: Buffer;
}

/** What a login cookie proved: who sent it, or why it is refused. */
export type CookieCheck =
  | { ok: true; principal: DashboardPrincipal }
  | { ok: false; reason: 'expired' | 'invalid' };

/** A successful sign-in: who, and the cookie value to set with its lifetime. */
export interface SignIn {
  principal: DashboardPrincipal;
  cookie: string;
  /** The cookie's `Max-Age`: the session's lifetime, in whole seconds. */
  maxAgeSeconds: number;
}

/** Options of {@link DashboardCredentials}. */
export interface DashboardCredentialsOptions {
  /** How long a login cookie is accepted after `/login` issued it. @default 12 hours */
  sessionTtlMs?: number;
  /** Time source for issuing and checking cookies. @default the wall clock */
  clock?: Clock;
}

/** How far ahead of this server's clock a cookie's `issuedAt` may be (another replica's clock): 60 s. */
export const COOKIE_CLOCK_SKEW_MS = 60_000;

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * The configured tokens, kept only as SHA-256 digests, and the check of a presented bearer token
 * or login cookie against them. Digests and MACs have one length, so `timingSafeEqual` compares
 * them in constant time whatever the client sent.
 *
 * The login cookie (see {@link LoginCookie}) carries its issue and expiry times under an HMAC keyed
 * by the token's digest: it survives a dashboard restart, stops working when the token is removed
 * from `DASHBOARD_TOKENS` or when it expires (checked here, not left to the browser), a client
 * cannot extend it, and a leaked cookie does not reveal the bearer token.
 */
export class DashboardCredentials {
  private readonly known: Known[];
  readonly sessionTtlMs: number;
  private readonly clock: Clock;

  constructor(entries: readonly DashboardTokenEntry[], options: DashboardCredentialsOptions = {}) {
    if (entries.length === 0)
      throw new Error('DashboardCredentials needs at least one token; set DASHBOARD_TOKENS=operator:<token>');
    this.sessionTtlMs = options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
    if (!Number.isInteger(this.sessionTtlMs) || this.sessionTtlMs < 1000)
      throw new Error(`sessionTtlMs must be a whole number of at least 1000 ms (got ${this.sessionTtlMs})`);
    this.clock = options.clock ?? systemClock;
    for (const e of entries) {
      const weakness = tokenStrength(e.token).weakness;
      // Configuration is checked by DashboardTokenEntry; this catches an embedder passing entries directly.
      if (weakness !== undefined) throw new Error(`the ${e.role}${e.name !== undefined ? ` (${e.name})` : ''} token is too weak: ${weakness}; ${TOKEN_RECIPE}`);
    }
    this.known = entries.map((e) => ({
      principal: { role: e.role, id: `${e.role}:${e.name ?? sha256(e.token).toString('hex').slice(0, 6)}` },
      digest: sha256(e.token),
    }));
  }

  /** The principal whose token this is, if any. */
  byToken(token: string): DashboardPrincipal | undefined {
    return this.find(sha256(token));
  }

  /** Checks a token and, when it is configured, issues a login cookie valid from now for the session TTL. */
  signIn(token: string): SignIn | undefined {
    const digest = sha256(token);
    const principal = this.find(digest);
    if (!principal) return undefined;
    return {
      principal,
      cookie: LoginCookie.issue(digest, this.clock.now(), this.sessionTtlMs),
      maxAgeSeconds: Math.ceil(this.sessionTtlMs / 1000),
    };
  }

  /**
   * Who sent this login cookie value, or why it is refused: `invalid` when it is malformed, of an
   * older format, or its MAC matches no configured token (forged, tampered times, token removed);
   * issued more than {@link COOKIE_CLOCK_SKEW_MS} in the future (minted ahead to outlive the TTL);
   * `expired` when it is genuine but past its expiry, or older than the session TTL now
   * configured (so shortening `DASHBOARD_SESSION_TTL_MS` also cuts sessions already issued).
   */
  byCookie(value: string): CookieCheck {
    const fields = LoginCookie.parse(value);
    if (!fields) return { ok: false, reason: 'invalid' };
    const presented = Buffer.from(fields.mac, 'base64url');
    let found: DashboardPrincipal | undefined;
    // Every entry is compared, so the time taken does not say which one matched.
    for (const k of this.known) {
      const expected = Buffer.from(LoginCookie.mac(k.digest, fields.issuedAt, fields.expiresAt), 'base64url');
      if (timingSafeEqual(presented, expected) && !found) found = k.principal;
    }
    if (!found) return { ok: false, reason: 'invalid' };
    const now = this.clock.now();
    // Only a holder of the token can mint a cookie, but one dated ahead would outlive the TTL by
    // as much; replicas' clocks may differ a little, hence the allowance.
    if (fields.issuedAt > now + COOKIE_CLOCK_SKEW_MS) return { ok: false, reason: 'invalid' };
    if (now >= fields.expiresAt || now >= fields.issuedAt + this.sessionTtlMs) return { ok: false, reason: 'expired' };
    return { ok: true, principal: found };
  }

  private find(digest: Buffer): DashboardPrincipal | undefined {
    let found: DashboardPrincipal | undefined;
    // Every entry is compared, so the time taken does not say which one matched.
    for (const k of this.known) if (timingSafeEqual(digest, k.digest) && !found) found = k.principal;
    return found;
  }
}
