import { createHmac } from 'node:crypto';
import { ManualClock } from '@sas/testkit';
import { COOKIE_CLOCK_SKEW_MS, DashboardCredentials } from './dashboard-credentials';
import { LoginCookie } from './login-cookie';

const OPERATOR = 'a6ecff892b26155db43753179423b482';
const VIEWER = 'bbf699a08206fa05877d9c01aa1b284a';
const HOUR = 60 * 60 * 1000;
const T0 = Date.UTC(2030, 0, 1, 9);

describe('login cookies carry their issue and expiry times under the MAC', () => {
  let clock: ManualClock;
  let credentials: DashboardCredentials;

  beforeEach(() => {
    clock = new ManualClock(T0);
    credentials = new DashboardCredentials(
      [
        { role: 'operator', name: 'alice', token: OPERATOR },
        { role: 'viewer', token: VIEWER },
      ],
      { sessionTtlMs: 12 * HOUR, clock },
    );
  });

  const signIn = (token: string): string => {
    const result = credentials.signIn(token);
    if (!result) throw new Error('the test token was refused');
    return result.cookie;
  };
  /** The cookie with one of its dot-separated fields replaced, its MAC kept. */
  const withField = (cookie: string, index: number, value: string): string => {
    const parts = cookie.split('.');
    parts[index] = value;
    return parts.join('.');
  };

  it('issues v2.<issuedAt>.<expiresAt>.<mac> without the token, lasting the session TTL', () => {
    const result = credentials.signIn(OPERATOR);
    expect(result).toMatchObject({ principal: { role: 'operator', id: 'operator:alice' }, maxAgeSeconds: 12 * 60 * 60 });
    expect(result!.cookie).toMatch(new RegExp(`^v2\\.${T0}\\.${T0 + 12 * HOUR}\\.[A-Za-z0-9_-]{43}$`));
    expect(result!.cookie).not.toContain(OPERATOR);
    expect(credentials.signIn('not-a-configured-token-at-all')).toBeUndefined();
  });

  it('accepts the cookie until its expiry and refuses it as expired from then on', () => {
    const cookie = signIn(VIEWER);
    clock.t = T0 + 12 * HOUR - 1;
    expect(credentials.byCookie(cookie)).toEqual({ ok: true, principal: { role: 'viewer', id: expect.stringMatching(/^viewer:[0-9a-f]{6}$/) } });
    clock.t = T0 + 12 * HOUR;
    expect(credentials.byCookie(cookie)).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuses a genuine cookie dated more than a minute ahead (minted to outlive the TTL), and accepts one within the clock allowance', () => {
    clock.t = T0 + 10 * HOUR;
    const ahead = signIn(OPERATOR);
    clock.t = T0;
    expect(credentials.byCookie(ahead)).toEqual({ ok: false, reason: 'invalid' });
    clock.t = T0 + 10 * HOUR - COOKIE_CLOCK_SKEW_MS;
    expect(credentials.byCookie(ahead)).toEqual({ ok: true, principal: { role: 'operator', id: 'operator:alice' } });
  });

  it('refuses to hold a weak token even when given directly, saying how to make one', () => {
    expect(() => new DashboardCredentials([{ role: 'operator', name: 'bob', token: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }])).toThrow(
      /^the operator \(bob\) token is too weak: a password estimator \(zxcvbn\).*openssl rand -base64 32/,
    );
  });

  it('refuses a cookie whose expiry was moved later, as invalid', () => {
    const cookie = signIn(OPERATOR);
    const extended = withField(cookie, 2, String(T0 + 1000 * HOUR));
    expect(credentials.byCookie(extended)).toEqual({ ok: false, reason: 'invalid' });
    clock.t = T0 + 13 * HOUR;
    expect(credentials.byCookie(extended)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('refuses a cookie whose issue time was moved later, or whose MAC was altered', () => {
    const cookie = signIn(OPERATOR);
    expect(credentials.byCookie(withField(cookie, 1, String(T0 + HOUR)))).toEqual({ ok: false, reason: 'invalid' });
    const mac = cookie.split('.')[3]!;
    const flipped = (mac[0] === 'A' ? 'B' : 'A') + mac.slice(1);
    expect(credentials.byCookie(withField(cookie, 3, flipped))).toEqual({ ok: false, reason: 'invalid' });
  });

  it('refuses a cookie made for a token that is no longer configured', () => {
    const cookie = signIn(VIEWER);
    const withoutViewer = new DashboardCredentials([{ role: 'operator', token: OPERATOR }], { clock });
    expect(withoutViewer.byCookie(cookie)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('refuses the older cookie format without times, and garbage', () => {
    const v1 = createHmac('sha256', OPERATOR).update('sas-dashboard-login-v1').digest('base64url');
    for (const value of [v1, '', 'forged', `v2.${T0}.${T0 + HOUR}`, `v2.x.${T0}.${'A'.repeat(43)}`]) {
      expect(credentials.byCookie(value)).toEqual({ ok: false, reason: 'invalid' });
    }
  });

  it('cuts sessions already issued when the TTL is lowered', () => {
    const cookie = signIn(OPERATOR);
    const shorter = new DashboardCredentials([{ role: 'operator', token: OPERATOR }], { sessionTtlMs: HOUR, clock });
    clock.t = T0 + HOUR - 1;
    expect(shorter.byCookie(cookie).ok).toBe(true);
    clock.t = T0 + HOUR;
    expect(shorter.byCookie(cookie)).toEqual({ ok: false, reason: 'expired' });
    expect(credentials.byCookie(cookie).ok).toBe(true);
  });

  it('parses only the current format', () => {
    expect(LoginCookie.parse(`v2.1.2.${'A'.repeat(43)}`)).toEqual({ issuedAt: 1, expiresAt: 2, mac: 'A'.repeat(43) });
    expect(LoginCookie.parse(`v3.1.2.${'A'.repeat(43)}`)).toBeUndefined();
  });

  it('refuses a session TTL under one second', () => {
    expect(() => new DashboardCredentials([{ role: 'operator', token: OPERATOR }], { sessionTtlMs: 999 })).toThrow(
      'sessionTtlMs must be a whole number of at least 1000 ms (got 999)',
    );
  });
});
