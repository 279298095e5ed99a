import { createHash } from 'node:crypto';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Bus } from '@sas/bus';
import { systemClock } from '@sas/runtime';
import { startRedis, type RedisServer } from '@sas/stack';
import { ManualClock, uniqueName } from '@sas/testkit';
import { pino } from 'pino';
import { type DashboardAuth } from './dashboard-access';
import { createDashboardApp } from './dashboard-app';
import { DashboardCredentials } from './dashboard-credentials';
import { systemQueueNames } from './queue-catalog';
import { FakeCommandSender } from './test-support/fake-command-sender';
import { FakeReadModel } from './test-support/fake-read-model';
import { processDoc } from './test-support/process-doc';
import { InMemoryAuditLog } from './test-support/in-memory-audit-log';

const OPERATOR = 'a6ecff892b26155db43753179423b482';
const VIEWER = 'bbf699a08206fa05877d9c01aa1b284a';
const AGENTS = ['inventory'];
const SESSION_TTL_MS = 60 * 60 * 1000;

describe('who may use the dashboard (tokens from DASHBOARD_TOKENS)', () => {
  let redis: RedisServer;
  let bus: Bus;
  let server: Server | undefined;
  let base: string;
  let commands: FakeCommandSender;
  let clock: ManualClock;

  const call = async (
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: string,
  ): Promise<{ status: number; body: Record<string, unknown>; text: string; headers: Headers }> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body,
      redirect: 'manual',
    });
    const text = await res.text();
    const json = (res.headers.get('content-type') ?? '').includes('json')
      ? (JSON.parse(text) as Record<string, unknown>)
      : {};
    return { status: res.status, body: json, text, headers: res.headers };
  };
  const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
  /** This dashboard's login cookie name: named after the port the browser used. */
  const ourCookie = (): string => `sas_dashboard_${new URL(base).port}`;

  let audit: InMemoryAuditLog;
  /** Audit entries are stored once the answer is sent: wait for the one looked for. */
  const waitForAudit = async (match: (e: InMemoryAuditLog['entries'][number]) => boolean): Promise<void> => {
    for (let i = 0; i < 100 && !audit.entries.some(match); i++) await new Promise((r) => setTimeout(r, 10));
    expect(audit.entries.some(match)).toBe(true);
  };

  const serve = async (auth: DashboardAuth): Promise<void> => {
    audit = new InMemoryAuditLog();
    const readModel = new FakeReadModel();
    readModel.processes = [processDoc({ _id: 'p1', orderId: 'A-1', state: 'Error' })];
    commands = new FakeCommandSender();
    const app = createDashboardApp({
      audit,
      readModel,
      alerts: { newest: async () => [] },
      queues: systemQueueNames(AGENTS).map((n) => bus.queue(n)),
      commands,
      auth,
      logger: pino({ level: 'silent' }),
      redisReady: () => bus.isReady(),
      instanceId: 'access-test',
      queuePrefix: 'sas-test',
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server!.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  beforeAll(async () => {
    redis = await startRedis();
    bus = new Bus({
      redisUrl: redis.url,
      prefix: uniqueName('dashboard-access'),
      instanceId: 'test',
      logger: pino({ level: 'silent' }),
      clock: systemClock,
    });
  });
  afterAll(async () => {
    await bus?.close();
    await redis?.stop();
  });
  beforeEach(() => {
    clock = new ManualClock(Date.UTC(2030, 0, 1, 9));
    return serve(
      new DashboardCredentials(
        [
          { role: 'operator', token: OPERATOR },
          { role: 'viewer', name: 'val', token: VIEWER },
        ],
        { sessionTtlMs: SESSION_TTL_MS, clock },
      ),
    );
  });
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await Promise.all(systemQueueNames(AGENTS).map((n) => bus.queue(n).obliterate({ force: true })));
  });

  it('answers 401 without valid credentials: a JSON error for the APIs, a sign-in page for the browser', async () => {
    for (const [path, headers] of [
      ['/api/processes', {}],
      ['/api/processes', bearer('not-a-configured-token-at-all')],
      ['/queues/api/queues', {}],
    ] as const) {
      const res = await call('GET', path, headers);
      expect(res.status).toBe(401);
      expect(res.body['error']).toMatch(
        /^Not signed in: GET \/(api|queues\/api)\/\S+ needs Authorization: Bearer <token>/,
      );
    }
    const page = await call('GET', '/');
    expect(page.status).toBe(401);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.text).toContain('/login?token=&lt;your token&gt;');
    expect((await call('GET', '/queues')).status).toBe(401);
    expect((await call('POST', '/api/processes/p1/cancel', {}, '{}')).status).toBe(401);
    expect(commands.sent).toEqual([]);
  });

  it('keeps /healthz and /readyz open for probes', async () => {
    expect((await call('GET', '/healthz')).status).toBe(200);
    expect((await call('GET', '/readyz')).status).toBe(200);
  });

  it('lets a viewer read but answers 403 to a viewer’s resubmit and sends nothing', async () => {
    expect((await call('GET', '/api/processes', bearer(VIEWER))).status).toBe(200);
    expect((await call('GET', '/', bearer(VIEWER))).status).toBe(200);
    const res = await call('POST', '/api/processes/p1/resubmit', bearer(VIEWER), '{}');
    expect(res.status).toBe(403);
    expect(res.body['error']).toBe(
      'viewer:val may only read; POST /api/processes/p1/resubmit needs a token with the operator role',
    );
    expect(commands.sent).toEqual([]);
  });

  it('gives everyone a read-only bull-board that refuses every write, the operator included, and audits the refusal', async () => {
    for (const token of [VIEWER, OPERATOR]) {
      const queues = (await call('GET', '/queues/api/queues', bearer(token))).body['queues'] as { readOnlyMode: boolean }[];
      expect(queues.length).toBeGreaterThan(0);
      expect(queues.every((q) => q.readOnlyMode)).toBe(true);
    }
    const viewer = await call('PUT', '/queues/api/queues/submission/retry/failed', bearer(VIEWER));
    expect(viewer.status).toBe(403);
    expect(viewer.body['error']).toMatch(/^viewer:val may only read; PUT \/queues\/api\/queues\/submission\/retry\/failed needs a token with the operator role/);
    const operator = await call('POST', '/queues/api/queues/operator.commands/add', bearer(OPERATOR), JSON.stringify({ name: 'x', data: { by: 'operator:ceo' } }));
    expect(operator.status).toBe(403);
    expect(operator.body['error']).toMatch(/^bull-board is read-only here: POST \/queues\/api\/queues\/operator\.commands\/add is refused/);
    await waitForAudit((e) => e.action === 'bull-board.write');
    expect(audit.entries.filter((e) => e.route.startsWith('POST /queues') || e.route.startsWith('PUT /queues'))).toEqual([
      expect.objectContaining({ principal: 'viewer:val', role: 'viewer', outcome: 'refused', status: 403, route: 'PUT /queues/api/queues/submission/retry/failed' }),
      expect.objectContaining({ action: 'bull-board.write', role: 'operator', target: 'queue operator.commands', outcome: 'refused', status: 403, address: '127.0.0.1' }),
    ]);
  });

  it('audits a refused "pause every queue" as aimed at every queue, not at a queue named pause', async () => {
    for (const action of ['pause', 'resume']) expect((await call('PUT', `/queues/api/queues/${action}`, bearer(OPERATOR))).status).toBe(403);
    expect((await call('PUT', '/queues/api/queues/submission/pause', bearer(OPERATOR))).status).toBe(403);
    await waitForAudit((e) => e.route === 'PUT /queues/api/queues/submission/pause');
    expect(audit.entries.filter((e) => e.action === 'bull-board.write').map((e) => [e.route, e.target])).toEqual([
      ['PUT /queues/api/queues/pause', 'every queue'],
      ['PUT /queues/api/queues/resume', 'every queue'],
      ['PUT /queues/api/queues/submission/pause', 'queue submission'],
    ]);
  });

  it('lets operators read the audit log, filtered, and answers a viewer 403', async () => {
    await call('POST', '/api/processes/A-1/cancel', bearer(OPERATOR), JSON.stringify({ reason: 'customer asked' }));
    await waitForAudit((e) => e.action === 'process.cancel');
    const viewer = await call('GET', '/api/audit', bearer(VIEWER));
    expect([viewer.status, viewer.body['error']]).toEqual([403, 'viewer:val may not read the audit log; it needs a token with the operator role']);
    const listed = await call('GET', '/api/audit?orderId=A-1&action=process.cancel', bearer(OPERATOR));
    expect(listed.status).toBe(200);
    expect(listed.body['entries']).toEqual([expect.objectContaining({ action: 'process.cancel', target: 'process p1', orderId: 'A-1', outcome: 'ok', status: 200, detail: 'customer asked', route: 'POST /api/processes/A-1/cancel' })]);
    expect((await call('GET', '/api/audit?limit=0', bearer(OPERATOR))).status).toBe(400);
  });

  it('names the authenticated operator in the command, whatever the body says', async () => {
    const res = await call(
      'POST',
      '/api/processes/A-1/resubmit',
      bearer(OPERATOR),
      JSON.stringify({ by: 'somebody-else', reason: 'remote fixed' }),
    );
    expect(res.status).toBe(200);
    const id = `operator:${createHash('sha256').update(OPERATOR).digest('hex').slice(0, 6)}`;
    expect(commands.sent).toEqual([{ command: 'resubmit', processId: 'p1', by: id, reason: 'remote fixed' }]);
  });

  it('signs a browser in with /login?token=…: an HttpOnly SameSite=Strict cookie without the token, then / ', async () => {
    const login = await call('GET', `/login?token=${OPERATOR}`);
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toBe('/');
    const setCookie = login.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^sas_dashboard_\d+=v2\.\d+\.\d+\.[\w-]{43}; Max-Age=3600; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(setCookie).not.toContain(OPERATOR);
    const cookie = { cookie: setCookie.split(';')[0]! };
    expect((await call('GET', '/', cookie)).status).toBe(200);
    // A browser's write says where it comes from; the page's own does.
    expect((await call('POST', '/api/processes/p1/cancel', { ...cookie, origin: base }, '{}')).status).toBe(200);
    expect((await call('POST', '/api/processes/p1/cancel', cookie, '{}')).status).toBe(403);
    expect(commands.sent.map((s) => s.by)).toEqual([expect.stringMatching(/^operator:[0-9a-f]{6}$/)]);

    const wrong = await call('GET', '/login?token=wrong-token-wrong-token');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect((await call('GET', '/api/processes', { cookie: `${ourCookie()}=forged` })).status).toBe(401);
  });

  /** Signs in through /login and returns the `cookie` header a browser would send. */
  const login = async (token: string): Promise<{ cookie: string }> => {
    const res = await call('GET', `/login?token=${token}`);
    expect(res.status).toBe(303);
    return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0]! };
  };

  it('signs a browser out with POST /logout: the cookie is cleared with the same attributes and the sign-in page shown', async () => {
    const cookie = await login(VIEWER);
    const out = await call('POST', '/logout', { ...cookie, referer: `${base}/` });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toBe(`${ourCookie()}=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict`);
    expect(out.headers.get('cache-control')).toBe('no-store');
    expect(out.text).toContain('<h1>Sign in</h1><p>You are signed out.</p>');
    // Signing out needs no credential: a browser whose cookie already expired can still clear it.
    expect((await call('POST', '/logout')).status).toBe(200);
  });

  it('refuses a copy of the cookie taken before signing out, saying it was signed out, without counting it as a guess', async () => {
    const cookie = await login(OPERATOR);
    expect((await call('GET', '/api/processes', cookie)).status).toBe(200);
    expect((await call('POST', '/logout', { ...cookie, referer: `${base}/` })).status).toBe(200);
    const replayed = await call('GET', '/api/processes', cookie);
    expect([replayed.status, replayed.body['error']]).toEqual([401, expect.stringMatching(/^Signed out: GET \/api\/processes needs/)]);
    expect((await call('GET', '/', cookie)).text).toContain('You signed out; open your login link again.');
    // A new sign-in works at once (a later one: a sign-in in the same millisecond is the same cookie).
    clock.t += 1;
    expect((await call('GET', '/api/processes', await login(OPERATOR))).status).toBe(200);
    expect(audit.entries.filter((e) => e.action === 'credential.refused')).toEqual([]);
  });

  it('refuses a sign-out posted by another site, leaving the cookie', async () => {
    const cookie = await login(VIEWER);
    const res = await call('POST', '/logout', { ...cookie, origin: 'https://elsewhere.example' });
    expect(res.status).toBe(403);
    expect(res.body['error']).toMatch(/^Cross-origin request refused \(Origin https:\/\/elsewhere\.example\)/);
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('refuses a login cookie replayed after its expiry, saying it expired', async () => {
    const cookie = await login(OPERATOR);
    clock.t += SESSION_TTL_MS - 1;
    expect((await call('GET', '/api/processes', cookie)).status).toBe(200);
    clock.t += 1;
    const api = await call('GET', '/api/processes', cookie);
    expect(api.status).toBe(401);
    expect(api.body['error']).toMatch(/^Sign-in expired: GET \/api\/processes needs Authorization: Bearer <token>/);
    const page = await call('GET', '/', cookie);
    expect(page.status).toBe(401);
    expect(page.text).toContain('Your sign-in has expired; open your login link again.');
    expect((await call('POST', '/api/processes/p1/cancel', cookie, '{}')).status).toBe(401);
    expect(commands.sent).toEqual([]);
  });

  it('refuses a login cookie whose expiry was rewritten later', async () => {
    const { cookie } = await login(OPERATOR);
    const [name, value] = cookie.split('=') as [string, string];
    const parts = value.split('.');
    parts[2] = String(Number(parts[2]) + 100 * SESSION_TTL_MS);
    const tampered = { cookie: `${name}=${parts.join('.')}` };
    const res = await call('GET', '/api/processes', tampered);
    expect(res.status).toBe(401);
    expect(res.body['error']).toMatch(/^Not signed in: /);
    clock.t += 2 * SESSION_TTL_MS;
    expect((await call('GET', '/api/processes', tampered)).status).toBe(401);
  });

  it('shows who is signed in and a Sign out button on the page', async () => {
    const page = await call('GET', '/', await login(VIEWER));
    expect(page.text).toContain('<span class="muted" id="who">viewer:val</span>');
    expect(page.text).toContain('<button type="button" id="sign-out">Sign out</button>');
  });

  it('serves everything without a login only when DASHBOARD_AUTH=off, naming no one the body names', async () => {
    await new Promise((resolve) => server?.close(resolve));
    await serve('off');
    expect((await call('GET', '/api/processes')).status).toBe(200);
    expect((await call('POST', '/api/processes/p1/cancel', {}, JSON.stringify({ by: 'alice' }))).status).toBe(
      200,
    );
    expect(commands.sent.map((s) => s.by)).toEqual(['operator via dashboard']);
    const page = await call('GET', '/');
    expect(page.text).not.toContain('id="sign-out"');
  });

  describe('when others fail to sign in from the operator’s address', () => {
    const wrongBearer = (i: number): Record<string, string> => bearer(`${String(i).padStart(4, '0')}-not-a-configured-token`);

    it('still lets the operator in with a valid token, cookie or login link, and keeps refusing wrong ones with 429', async () => {
      const cookie = await login(OPERATOR);
      // 20 failures are allowed per address (DEFAULT_AUTH_LIMITS); the 21st blocks it.
      for (let i = 0; i < 20; i++) expect((await call('GET', '/api/processes', wrongBearer(i))).status).toBe(401);
      expect((await call('GET', '/api/processes', wrongBearer(20))).status).toBe(429);

      expect((await call('GET', '/api/processes', bearer(OPERATOR))).status).toBe(200);
      expect((await call('GET', '/api/processes', cookie)).status).toBe(200);
      expect((await call('GET', `/login?token=${VIEWER}`)).status).toBe(303);
      const stillWrong = await call('GET', '/api/processes', wrongBearer(21));
      expect(stillWrong.status).toBe(429);
      expect(Number(stillWrong.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await call('GET', '/login?token=0000-still-not-a-configured-token')).status).toBe(429);
    });

    it('neither checks nor counts a login link another site’s page opened (an <img>), so 25 of them lock nobody out', async () => {
      for (let i = 0; i < 25; i++) {
        const res = await call('GET', `/login?token=junk-${i}`, { 'sec-fetch-site': 'cross-site', 'sec-fetch-dest': 'image' });
        expect(res.status).toBe(403);
        expect(res.text).toContain("opened by another site's page (Sec-Fetch-Site: cross-site), so it was not checked");
      }
      // Older browsers say it with a Referer; another dashboard on this host is same-site.
      expect((await call('GET', '/login?token=junk', { referer: 'https://evil.example/page' })).status).toBe(403);
      expect((await call('GET', '/login?token=junk', { 'sec-fetch-site': 'same-site' })).status).toBe(403);
      const rightButCrossSite = await call('GET', `/login?token=${OPERATOR}`, { 'sec-fetch-site': 'cross-site' });
      expect(rightButCrossSite.headers.get('set-cookie')).toBeNull();
      // Nothing was counted or audited: a wrong token typed now is the first failure (401, not 429).
      expect((await call('GET', '/login?token=wrong-token-wrong-token', { 'sec-fetch-site': 'none' })).status).toBe(401);
      await waitForAudit((e) => e.action === 'sign-in.failed');
      expect(audit.entries.filter((e) => e.action === 'sign-in.failed')).toHaveLength(1);
      // Pasted into the address bar (Sec-Fetch-Site: none), the right link signs in.
      expect((await call('GET', `/login?token=${OPERATOR}`, { 'sec-fetch-site': 'none' })).status).toBe(303);
    });

    it('ignores another dashboard’s cookie on the same host (another port): not a credential here, not a failure', async () => {
      const own = await login(OPERATOR);
      const foreign = 'sas_dashboard_1=v2.1893488400000.1893492000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
      for (let i = 0; i < 25; i++) expect((await call('GET', '/api/processes', { cookie: foreign })).status).toBe(401);
      expect((await call('GET', '/api/processes', { cookie: `${foreign}; ${own.cookie}` })).status).toBe(200);
      // None of the 25 counted: a wrong bearer token now is answered 401, not 429.
      expect((await call('GET', '/api/processes', wrongBearer(0))).status).toBe(401);
    });
  });

  it('refuses a DNS-rebinding page (another Host) with 421, probes and DASHBOARD_AUTH=off included, and sends nothing', async () => {
    await new Promise((resolve) => server?.close(resolve));
    await serve('off');
    // fetch may not set Host; a rebinding page's browser sends the page's own name.
    const asEvil = (method: string, path: string, body?: string): Promise<number> =>
      new Promise((resolve, reject) => {
        const url = new URL(path, base);
        const req = request({ host: url.hostname, port: url.port, path: url.pathname, method, headers: { host: `evil.example:${url.port}`, 'content-type': 'application/json', origin: `http://evil.example:${url.port}` } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(body);
      });
    expect(await asEvil('POST', '/api/bulk', JSON.stringify({ action: 'cancel', dryRun: true, reason: 'x', filter: { state: ['Error'] } }))).toBe(421);
    expect(await asEvil('POST', '/api/processes/p1/cancel', '{}')).toBe(421);
    expect(await asEvil('GET', '/readyz')).toBe(421);
    expect(await asEvil('GET', '/api/processes')).toBe(421);
    expect(commands.sent).toEqual([]);
    expect((await call('GET', '/readyz')).status).not.toBe(421);
  });
});
