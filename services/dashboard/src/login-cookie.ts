import { createHmac } from 'node:crypto';

/** Start of every dashboard's login cookie name (see {@link loginCookieName}). */
export const LOGIN_COOKIE = 'sas_dashboard';

/**
 * The login cookie's name for this dashboard: `sas_dashboard_<instance>` when `DASHBOARD_INSTANCE_NAME`
 * gives one, else `sas_dashboard_<port>` with the port of the address the browser used (the `Host`
 * header's; plain `sas_dashboard` when it has none). A browser keeps cookies per host name, not per
 * port, and sends every dashboard's cookie to every dashboard of that host: with one name, a
 * second dashboard's cookie would be read here as a forged one. A name per instance means each
 * dashboard reads only its own and ignores the others'.
 */
export function loginCookieName(hostHeader: string | undefined, instance?: string): string {
  if (instance !== undefined && instance !== '') return `${LOGIN_COOKIE}_${instance}`;
  const port = /:(\d{1,5})$/.exec(hostHeader ?? '')?.[1];
  return port !== undefined ? `${LOGIN_COOKIE}_${port}` : LOGIN_COOKIE;
}

/** How long a sign-in lasts unless `DASHBOARD_SESSION_TTL_MS` says otherwise: 12 hours. */
export const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

const VERSION = 'v2';
const MAC_LABEL = 'sas-dashboard-login-v2';
// Epoch milliseconds are 13 digits until the year 2286; the bound keeps Number() exact.
const FORMAT = /^v2\.(\d{1,15})\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/;

/** The fields of a well-formed login cookie; its MAC is not checked yet. */
export interface LoginCookieFields {
  /** When `/login` issued it, epoch ms. */
  issuedAt: number;
  /** When it stops being accepted, epoch ms. */
  expiresAt: number;
  /** base64url HMAC-SHA256 over the label and both times. */
  mac: string;
}

/**
 * The login cookie's value: `v2.<issuedAt>.<expiresAt>.<mac>`, times in epoch ms, `mac` the
 * base64url HMAC-SHA256 of `sas-dashboard-login-v2.<issuedAt>.<expiresAt>` keyed by the
 * token's SHA-256 digest. The times sit under the MAC, so a client cannot extend its session,
 * and the server checks them itself: a cookie kept (or replayed) past its expiry is refused
 * whatever the browser does with `Max-Age`. The token itself is never in the cookie.
 */
export class LoginCookie {
  private constructor() {}

  /** The value for a token's digest, issued at `issuedAt` and valid for `ttlMs`. */
  static issue(key: Buffer, issuedAt: number, ttlMs: number): string {
    const expiresAt = issuedAt + ttlMs;
    return `${VERSION}.${issuedAt}.${expiresAt}.${LoginCookie.mac(key, issuedAt, expiresAt)}`;
  }

  /** The fields of a value in the current format, or `undefined` (older format, garbage). */
  static parse(value: string): LoginCookieFields | undefined {
    const m = FORMAT.exec(value);
    if (!m) return undefined;
    return { issuedAt: Number(m[1]), expiresAt: Number(m[2]), mac: m[3]! };
  }

  /** The MAC a genuine cookie with these times carries for this key. */
  static mac(key: Buffer, issuedAt: number, expiresAt: number): string {
    return createHmac('sha256', key).update(`${MAC_LABEL}.${issuedAt}.${expiresAt}`).digest('base64url');
  }
}
