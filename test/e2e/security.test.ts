import { spawn } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { request, type IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuditEntry } from '@sas/contracts';
import { QueueNames, SCHEMA_VERSION } from '@sas/contracts';
import { findWorkspaceRoot, serviceScript } from '@sas/stack';
import { scrapeMetrics } from '@sas/testkit';
import { SystemChromium } from '../support/system-chromium';
import { SystemFixture } from '../support/system-fixture';
import { fastRoleEnv } from '../support/test-workflows';

/** Long enough for a noisy shared machine; every wait below ends as soon as its condition holds. */
const WAIT_MS = 30_000;
/** The audit retention the dashboard is given: each entry's TTL. */
const AUDIT_RETENTION_MS = 2 * 60 * 60 * 1000;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: Record<string, unknown>;
}

/**
 * The dashboard attacked as an attacker would: a real dashboard process (and a scheduler that
 * would apply a forged command), plain HTTP from chosen loopback addresses (127.0.0.0/8 is all
 * loopback on Linux, so each address is another client), and Debian's chromium for framing.
 */
describe('the operator surface against an attacker (real dashboard process)', () => {
  let fx: SystemFixture;
  let url: string;
  let port: number;
  /** A second dashboard replica's port: the same Redis, so the same failure counts. */
  let replicaPort: number;
  let token: string;
  const held = 'sec-held-1';

  /** One HTTP request from `from` (a loopback address), as any client could send it. */
  const send = (method: string, path: string, options: { from?: string; to?: number; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = request({ agent: false, host: '127.0.0.1', port: options.to ?? port, method, path, localAddress: options.from ?? '127.0.0.1', headers: options.headers ?? {} }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const json = (res.headers['content-type'] ?? '').includes('json') ? (JSON.parse(text) as Record<string, unknown>) : {};
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      });
      req.on('error', reject);
      req.end(options.body);
    });
  const bearer = (t: string): Record<string, string> => ({ authorization: `Bearer ${t}` });
  const audit = (filter: Record<string, unknown>): Promise<AuditEntry[]> => fx.db.collection<AuditEntry>('audit_log').find(filter).sort({ at: 1 }).toArray();
  /** A login cookie as only a holder of the token can make it (the documented format), issued at `issuedAt`. */
  const mintCookie = (issuedAt: number): string => {
    const expiresAt = issuedAt + 12 * 60 * 60 * 1000;
    const key = createHash('sha256').update(token, 'utf8').digest();
    const mac = createHmac('sha256', key).update(`sas-dashboard-login-v2.${issuedAt}.${expiresAt}`).digest('base64url');
    return `sas_dashboard_${port}=v2.${issuedAt}.${expiresAt}.${mac}`;
  };

  beforeAll(async () => {
    const env = fastRoleEnv();
    // No agent runs: the order stays Processing, with its first request waiting, until canceled.
    // Only 127.0.0.1 is a trusted proxy, so X-Forwarded-* from any other address is ignored.
    fx = await SystemFixture.start('security', { schedulers: 1, supervisors: 0, agents: {}, dashboard: 2 }, { ...env, dashboard: { DASHBOARD_TRUST_PROXY: '127.0.0.1', AUDIT_RETENTION_MS: String(AUDIT_RETENTION_MS) } });
    await fx.alerts.close();
    const [dashboard, replica] = fx.system.byRole('dashboard').map((d) => String(d.lines.find((l) => l.json?.['msg'] === 'dashboard ready')?.json?.['url']));
    url = dashboard!;
    port = Number(new URL(url).port);
    replicaPort = Number(new URL(replica!).port);
    token = String(fx.system.dashboardToken);
    await fx.submit([fx.order(held, { workflow: 'hold-fulfilment' })]);
    await fx.waitForStates([held], ['Processing'], WAIT_MS);
  });
  afterAll(() => fx?.stop());

  it('refuses a forged operator command added through bull-board, records who tried, and names the signed-in principal on the API path', async () => {
    const [doc] = await fx.processes({ orderId: held });
    const cookie = mintCookie(Date.now());
    // What bull-board's own "add job" button sends, from its own page, signed in.
    const forged = await send('POST', `/queues/api/queues/${QueueNames.operatorCommands}/add`, {
      headers: { cookie, origin: url, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'forged', data: { schemaVersion: SCHEMA_VERSION, command: 'cancel', processId: doc!._id, by: 'operator:ceo', reason: 'forged via bull-board' } }),
    });
    expect(forged.status).toBe(403);
    expect(forged.json['error']).toMatch(/^bull-board is read-only here: POST \/queues\/api\/queues\/operator\.commands\/add is refused/);
    const boards = (await send('GET', '/queues/api/queues', { headers: bearer(token) })).json['queues'] as { name: string; readOnlyMode: boolean }[];
    expect(boards.filter((q) => !q.readOnlyMode).map((q) => q.name)).toEqual([]);
    const commands = fx.queue(QueueNames.operatorCommands);
    try {
      const counts = await commands.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed', 'paused');
      expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(0);
    } finally {
      await commands.close();
    }
    const tried = await fx.stack.waitFor(async () => (await audit({ action: 'bull-board.write' }))[0], { timeoutMs: WAIT_MS, description: 'the refused bull-board write in the audit log' });
    expect(tried).toMatchObject({ principal: 'operator:local', role: 'operator', address: '127.0.0.1', route: 'POST /queues/api/queues/operator.commands/add', target: 'queue operator.commands', outcome: 'refused', status: 403 });

    // The API path: whatever the body claims, the command and the history name the signed-in operator.
    const canceled = await send('POST', `/api/processes/${held}/cancel`, { headers: { ...bearer(token), 'content-type': 'application/json' }, body: JSON.stringify({ by: 'operator:ceo', reason: 'customer called' }) });
    expect([canceled.status, canceled.json['message']]).toEqual([200, expect.stringMatching(/^canceled by operator:local: customer called/)]);
    const history = await fx.stack.waitFor(async () => {
      const h = (await send('GET', `/api/processes/${doc!._id}`, { headers: bearer(token) })).json['history'] as { why: string }[];
      return h.some((e) => e.why.includes('canceled by operator:local')) ? h : null;
    }, { timeoutMs: WAIT_MS, description: 'the cancel in the process history' });
    expect(history.some((h) => h.why.includes('canceled by operator:local: customer called'))).toBe(true);
    expect(JSON.stringify(history)).not.toContain('operator:ceo');
    const entry = await fx.stack.waitFor(async () => (await audit({ action: 'process.cancel' }))[0], { timeoutMs: WAIT_MS, description: 'the cancel in the audit log' });
    expect(entry).toMatchObject({ principal: 'operator:local', address: '127.0.0.1', route: `POST /api/processes/${held}/cancel`, target: `process ${doc!._id}`, orderId: held, outcome: 'ok', status: 200, detail: 'customer called' });
    expect(entry.expiresAt.getTime() - entry.at.getTime()).toBe(AUDIT_RETENTION_MS);
    expect(await fx.db.collection('audit_log').indexes()).toContainEqual(expect.objectContaining({ key: { expiresAt: 1 }, expireAfterSeconds: 0 }));
    const listed = await send('GET', `/api/audit?orderId=${held}`, { headers: bearer(token) });
    expect((listed.json['entries'] as AuditEntry[]).map((e) => e.action)).toEqual(['process.cancel']);
  });

  it('refuses a form or text/plain POST without Origin, and one whose Referer is another site', async () => {
    const cookie = mintCookie(Date.now());
    const target = '/api/processes/sec-nothing/cancel';
    const form = await send('POST', target, { headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: 'reason=x' });
    expect([form.status, form.json['error']]).toEqual([403, expect.stringMatching(/^A write with the login cookie must say where it comes from \(Origin or Referer\)/)]);
    const plain = await send('POST', target, { headers: { cookie, 'content-type': 'text/plain' }, body: '{"reason":"x"}' });
    expect(plain.status).toBe(403);
    const elsewhere = await send('POST', target, { headers: { cookie, referer: 'http://127.0.0.1:1/attack.html', 'content-type': 'application/json' }, body: '{}' });
    expect([elsewhere.status, elsewhere.json['error']]).toEqual([403, expect.stringMatching(/^Cross-origin request refused \(Referer of another site\)/)]);
    // The content type is refused on its own too: same origin, but a form body.
    const sameOriginForm = await send('POST', target, { headers: { cookie, origin: url, 'content-type': 'text/plain' }, body: '{"reason":"x"}' });
    expect([sameOriginForm.status, sameOriginForm.json['error']]).toEqual([415, expect.stringMatching(/accepts only Content-Type: application\/json \(got text\/plain\)/)]);
    // The same request as the page sends it passes both checks (and finds no such process).
    const page = await send('POST', target, { headers: { cookie, referer: `${url}/`, 'content-type': 'application/json' }, body: '{}' });
    expect(page.status).toBe(404);
  });

  it('answers 429 with Retry-After after the limit of wrong tokens from one address, logs and counts them without the token, and still lets the right token in, from that address too', async () => {
    const guesses = Array.from({ length: 200 }, () => randomBytes(16).toString('hex'));
    const statuses: number[] = [];
    let retryAfter: string | undefined;
    for (const guess of guesses) {
      const res = await send('GET', '/api/summary', { from: '127.0.0.2', headers: bearer(guess) });
      statuses.push(res.status);
      retryAfter ??= res.headers['retry-after'] as string | undefined;
    }
    // 20 failures allowed per 10 minutes; the 21st is refused as it is counted, the rest before any check.
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(statuses.slice(20)).toEqual(Array(180).fill(429));
    expect(Number(retryAfter)).toBeGreaterThan(800);
    expect(Number(retryAfter)).toBeLessThanOrEqual(900);
    // A blocked address is refused its wrong tokens; the right token is never refused for others' failures.
    expect((await send('GET', '/api/summary', { from: '127.0.0.2', headers: bearer(randomBytes(16).toString('hex')) })).status).toBe(429);
    expect((await send('GET', '/api/summary', { from: '127.0.0.2', headers: bearer(token) })).status).toBe(200);
    expect((await send('GET', '/api/summary', { from: '127.0.0.3', headers: bearer(token) })).status).toBe(200);

    const refused = await fx.stack.waitFor(async () => {
      const entries = await audit({ action: 'credential.refused', address: '127.0.0.2' });
      return entries.length === 21 ? entries : null;
    }, { timeoutMs: WAIT_MS, description: '21 refused credentials of 127.0.0.2 in the audit log' });
    expect(refused.map((e) => e.status)).toEqual([...Array(20).fill(401), 429]);
    expect(refused[0]).toMatchObject({ route: 'GET /api/summary', outcome: 'refused', detail: 'bearer token matches no configured token' });
    expect(refused.every((e) => e.principal === undefined)).toBe(true);
    const scrape = await scrapeMetrics(`${url}/metrics`);
    expect(scrape.series('sas_dashboard_credential_failures_total', { kind: 'bearer' }).map((s) => s.value)).toEqual([21]);
    expect(scrape.series('sas_dashboard_credential_limited_total').map((s) => s.value)).toEqual([1 + 179 + 1]);
    const lines = fx.system.byRole('dashboard')[0]!.lines;
    expect(lines.filter((l) => l.json?.['msg'] === 'credential refused (bearer token matches no configured token)' && l.json['address'] === '127.0.0.2')).toHaveLength(20);
    expect(lines.some((l) => guesses.some((g) => l.text.includes(g)) || l.text.includes(token))).toBe(false);
  });

  it('shares the counts between dashboard replicas through Redis', async () => {
    const from = '127.0.4.1';
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await send('GET', '/api/summary', { from, to: i % 2 === 0 ? port : replicaPort, headers: bearer(randomBytes(16).toString('hex')) })).status);
    expect(statuses).toEqual([...Array(20).fill(401), 429]);
    expect((await send('GET', '/api/summary', { from, to: replicaPort, headers: bearer(randomBytes(16).toString('hex')) })).status).toBe(429);
    expect((await send('GET', '/api/summary', { from, to: replicaPort, headers: bearer(token) })).status).toBe(200);
    expect((await send('GET', '/api/summary', { from: '127.0.4.2', to: replicaPort, headers: bearer(token) })).status).toBe(200);
  });

  it('stops a guess spread over many addresses by its token prefix, still letting the right token in', async () => {
    const prefix = 'deadbeef';
    const statuses: number[] = [];
    for (let i = 1; i <= 22; i++) statuses.push((await send('GET', `/login?token=${prefix}${randomBytes(12).toString('hex')}`, { from: `127.0.1.${i}` })).status);
    expect(statuses).toEqual([...Array(20).fill(401), 429, 429]);
    expect((await send('GET', '/api/summary', { from: '127.0.1.99', headers: bearer(`${prefix}${randomBytes(12).toString('hex')}`) })).status).toBe(429);
    expect((await send('GET', '/api/summary', { from: '127.0.1.99', headers: bearer(token) })).status).toBe(200);
    const failed = await fx.stack.waitFor(async () => ((await audit({ action: 'sign-in.failed' })).length >= 21 ? true : null), { timeoutMs: WAIT_MS, description: 'the failed sign-ins in the audit log' });
    expect(failed).toBe(true);
  });

  it('refuses a genuine cookie dated ahead of the clock, and audits it', async () => {
    const from = '127.0.2.1';
    expect((await send('GET', '/api/summary', { from, headers: { cookie: mintCookie(Date.now()) } })).status).toBe(200);
    const ahead = await send('GET', '/api/summary', { from, headers: { cookie: mintCookie(Date.now() + 60 * 60 * 1000) } });
    expect([ahead.status, ahead.json['error']]).toEqual([401, expect.stringMatching(/^Not signed in: GET \/api\/summary/)]);
    const entry = await fx.stack.waitFor(async () => (await audit({ action: 'credential.refused', address: from }))[0], { timeoutMs: WAIT_MS, description: 'the refused cookie in the audit log' });
    expect(entry).toMatchObject({ detail: 'login cookie is forged, tampered with or dated ahead', status: 401 });
  });

  it('sets Secure on the login cookie only behind the configured TLS proxy, and records the sign-in', async () => {
    const viaProxy = await send('GET', `/login?token=${token}`, { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' } });
    expect(viaProxy.headers['set-cookie']?.[0]).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
    const spoofed = await send('GET', `/login?token=${token}`, { from: '127.0.3.1', headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.8' } });
    expect(spoofed.headers['set-cookie']?.[0]).toMatch(/; HttpOnly; SameSite=Strict$/);
    const signIns = await fx.stack.waitFor(async () => {
      const entries = await audit({ action: 'sign-in' });
      return entries.length === 2 ? entries : null;
    }, { timeoutMs: WAIT_MS, description: 'two sign-ins in the audit log' });
    // The trusted proxy's X-Forwarded-For names the client; an untrusted sender's is ignored.
    expect(signIns.map((e) => [e.principal, e.address])).toEqual([['operator:local', '198.51.100.7'], ['operator:local', '127.0.3.1']]);
  });

  it('refuses to start with a weak token, naming how to make a good one', async () => {
    const root = findWorkspaceRoot();
    for (const weak of ['password12345678', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'CHANGE-ME-to-a-random-token', 'my-sas-dashboard-token-for-prod']) {
      const child = spawn(process.execPath, [serviceScript(root, 'dashboard')], { env: { ...fx.stack.env, PORT: '0', DASHBOARD_TOKENS: `operator:alice:${weak}` }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      // A dashboard that accepted the token would serve forever: stop it and fail on its exit code.
      const stop = setTimeout(() => child.kill('SIGKILL'), WAIT_MS);
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      clearTimeout(stop);
      expect(code).toBe(1);
      expect(stderr).toMatch(/dashboard failed to start: Invalid configuration:\s+DASHBOARD_TOKENS\.0: the operator \(alice\) token is too weak: .*generate one with: openssl rand -base64 32/);
      expect(stderr).not.toContain(weak);
    }
  });

  describe('in a real browser', () => {
    let browser: SystemChromium;
    let framer: Server;

    beforeAll(async () => {
      browser = await SystemChromium.launch('security');
      // Another port of the same host: the same site for cookies, so the login cookie goes along.
      framer = createServer((_req, res) => {
        res.setHeader('content-type', 'text/html');
        res.end(`<!doctype html><title>framer</title><iframe id="f" src="${url}/queues" onload="window.framed = true" width="800" height="600"></iframe>`);
      });
      await new Promise<void>((resolve) => framer.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      await browser?.close();
      if (framer) {
        framer.closeAllConnections();
        await new Promise((resolve) => framer.close(resolve));
      }
    });

    it('shows /queues signed in at the top level but not framed from another port', async () => {
      const page = browser.page;
      const refusedByPolicy: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' && /Content Security Policy/.test(m.text())) refusedByPolicy.push(m.text());
      });
      await page.goto(`${url}/login?token=${token}`);
      await page.goto(`${url}/queues`);
      await page.locator('#root a, #root h1, #root header').first().waitFor({ timeout: WAIT_MS });
      await page.locator('#root', { hasText: QueueNames.operatorCommands }).waitFor({ timeout: WAIT_MS });
      await browser.screenshot('queues-top-level');
      // The board works under the policy; the only thing it refuses is the board's web font from Google.
      expect(refusedByPolicy.filter((t) => !t.includes('fonts.googleapis.com'))).toEqual([]);
      const framerUrl = `http://127.0.0.1:${(framer.address() as AddressInfo).port}/`;
      await page.goto(framerUrl);
      await page.waitForFunction(() => (globalThis as { framed?: boolean }).framed === true, undefined, { timeout: WAIT_MS });
      const frame = page.frames().find((f) => f !== page.mainFrame());
      expect(frame).toBeDefined();
      expect(frame!.url()).not.toMatch(new RegExp(`^${url}`));
      expect(await frame!.locator('#root').count()).toBe(0);
      await browser.screenshot('framing-refused');
    });
  });
});
