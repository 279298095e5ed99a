import { AuthLimits } from './auth-limits';
import { LOCAL_OPERATOR, startLocalDashboard, type LocalDashboard } from './test-support/local-dashboard';

/** A small limit, so the count is seen at its edge: 3 failures allowed, the 4th refused. */
const LIMITS = { failures: 3, windowMs: 60_000, blockMs: 60_000 };

describe('the limit on failed sign-ins, per address and per token prefix', () => {
  let dashboard: LocalDashboard;
  /** A request from `address` (the test proxy is trusted, so X-Forwarded-For is the client). */
  const from = async (address: string, path: string, token?: string): Promise<number> => {
    const headers: Record<string, string> = { 'x-forwarded-for': address, ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}) };
    return (await fetch(`${dashboard.base}${path}`, { headers, redirect: 'manual' })).status;
  };
  /** The i-th wrong token, each with a prefix of its own so only the address counts. */
  const wrong = (i: number): string => `${String(i).padStart(8, '0')}-not-a-configured-token`;

  beforeEach(async () => {
    dashboard = await startLocalDashboard({ trustProxy: true, authLimits: AuthLimits.inMemory(LIMITS) });
  });
  afterEach(() => dashboard.close());

  it('answers the allowed failures of an address 401 and the next one 429 with Retry-After', async () => {
    for (let i = 0; i < LIMITS.failures; i++) expect([i, await from('192.0.2.1', '/api/processes', wrong(i))]).toEqual([i, 401]);
    const res = await fetch(`${dashboard.base}/api/processes`, { headers: { 'x-forwarded-for': '192.0.2.1', authorization: `Bearer ${wrong(99)}` } });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await from('192.0.2.1', `/login?token=${wrong(100)}`)).toBe(429);
  });

  it('never refuses a valid token or login link for the failures of others at its address', async () => {
    for (let i = 0; i <= LIMITS.failures; i++) await from('192.0.2.1', '/api/processes', wrong(i));
    expect(await from('192.0.2.1', '/api/processes', wrong(50))).toBe(429);
    expect(await from('192.0.2.1', '/api/processes', LOCAL_OPERATOR)).toBe(200);
    expect(await from('192.0.2.1', `/login?token=${LOCAL_OPERATOR}`)).toBe(303);
  });

  it('counts each address on its own: another address’s failures leave this one at 401', async () => {
    for (let i = 0; i <= LIMITS.failures; i++) await from('192.0.2.1', '/api/processes', wrong(i));
    expect(await from('192.0.2.2', '/api/processes', wrong(10))).toBe(401);
  });

  it('counts a token prefix over every address, so a guess spread over addresses is refused too', async () => {
    const shared = (i: number): string => `deadbeef-guess-${i}`;
    for (let i = 0; i < LIMITS.failures; i++) expect(await from(`198.51.100.${i + 1}`, `/login?token=${shared(i)}`)).toBe(401);
    expect(await from('198.51.100.99', `/login?token=${shared(99)}`)).toBe(429);
    expect(await from('198.51.100.99', `/login?token=${LOCAL_OPERATOR}`)).toBe(303);
  });
});
