import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** `viewer` reads (GET, the page, bull-board read-only); `operator` also resubmits, cancels and retries. */
export const DashboardRole = z.enum(['viewer', 'operator']);
export type DashboardRole = z.infer<typeof DashboardRole>;

/** Shortest token accepted: 16 characters, e.g. `openssl rand -hex 16` gives 32. */
export const MIN_TOKEN_LENGTH = 16;

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
  if (token.length < MIN_TOKEN_LENGTH) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: `the ${role.data} token is ${token.length} characters; each DASHBOARD_TOKENS token must be at least ${MIN_TOKEN_LENGTH} (generate one with: openssl rand -hex 16)`,
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
  bearerDigest: Buffer;
  cookieDigest: Buffer;
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * The configured tokens, kept only as SHA-256 digests, and the check of a presented bearer token
 * or login cookie against them. Digests have one length, so `timingSafeEqual` compares them in
 * constant time whatever the client sent.
 *
 * The login cookie holds `HMAC-SHA256(key = token, "sas-dashboard-login-v1")`, not the token: it
 * survives a dashboard restart, stops working when the token is removed from `DASHBOARD_TOKENS`,
 * and a leaked cookie does not reveal the bearer token.
 */
export class DashboardCredentials {
  private readonly known: Known[];

  constructor(entries: readonly DashboardTokenEntry[]) {
    if (entries.length === 0)
      throw new Error('DashboardCredentials needs at least one token; set DASHBOARD_TOKENS=operator:<token>');
    this.known = entries.map((e) => ({
      principal: { role: e.role, id: `${e.role}:${e.name ?? sha256(e.token).toString('hex').slice(0, 6)}` },
      bearerDigest: sha256(e.token),
      cookieDigest: sha256(DashboardCredentials.cookieValue(e.token)),
    }));
  }

  /** The login cookie's value for a token. */
  static cookieValue(token: string): string {
    return createHmac('sha256', token).update('sas-dashboard-login-v1').digest('base64url');
  }

  /** The principal whose token this is, if any. */
  byToken(token: string): DashboardPrincipal | undefined {
    return this.match(sha256(token), 'bearerDigest');
  }

  /** The principal whose login cookie value this is, if any. */
  byCookie(value: string): DashboardPrincipal | undefined {
    return this.match(sha256(value), 'cookieDigest');
  }

  private match(digest: Buffer, kind: 'bearerDigest' | 'cookieDigest'): DashboardPrincipal | undefined {
    let found: DashboardPrincipal | undefined;
    // Every entry is compared, so the time taken does not say which one matched.
    for (const k of this.known) if (timingSafeEqual(digest, k[kind]) && !found) found = k.principal;
    return found;
  }
}
