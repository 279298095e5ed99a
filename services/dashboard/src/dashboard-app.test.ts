import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Bus } from '@sas/bus';
import { QueueNames, SCHEMA_VERSION } from '@sas/contracts';
import { systemClock } from '@sas/runtime';
import { startRedis, type RedisServer } from '@sas/stack';
import { uniqueName } from '@sas/testkit';
import { pino } from 'pino';
import { alertRecord, type AlertRecord } from './alert-record';
import { createDashboardApp } from './dashboard-app';
import { DashboardCredentials } from './dashboard-credentials';
import { systemQueueNames } from './queue-catalog';
import { FakeCommandSender } from './test-support/fake-command-sender';
import { FakeReadModel } from './test-support/fake-read-model';
import { historyEntry, processDoc } from './test-support/process-doc';
import { InMemoryAuditLog } from './test-support/in-memory-audit-log';

/** Every request here is made as this operator; `dashboard-access.test.ts` covers who may do what. */
const TOKEN = 'a6ecff892b26155db43753179423b482';
const AS_ALICE = { authorization: `Bearer ${TOKEN}` };

describe('the dashboard app (fake store and schedulers, private Redis)', () => {
  let redis: RedisServer;
  let bus: Bus;
  let server: Server;
  let base: string;
  let readModel: FakeReadModel;
  let commands: FakeCommandSender;
  /** Alerts the fake store holds, newest first, and the limits it was asked for. */
  let storedAlerts: AlertRecord[];
  let alertLimits: number[];

  const get = async (path: string): Promise<{ status: number; body: Record<string, unknown>; text: string; headers: Headers }> => {
    const res = await fetch(`${base}${path}`, { headers: AS_ALICE });
    const text = await res.text();
    let body: Record<string, unknown> = {};
    if ((res.headers.get('content-type') ?? '').includes('json')) body = JSON.parse(text) as Record<string, unknown>;
    return { status: res.status, body, text, headers: res.headers };
  };
  const post = async (path: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${base}${path}`, { method: 'POST', body, headers: body === undefined ? { ...AS_ALICE, ...headers } : { ...AS_ALICE, 'content-type': 'application/json', ...headers } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    redis = await startRedis();
    bus = new Bus({ redisUrl: redis.url, prefix: uniqueName('dashboard-app'), instanceId: 'test', logger: pino({ level: 'silent' }), clock: systemClock });
  });
  afterAll(async () => {
    await bus?.close();
    await redis?.stop();
  });
  beforeEach(async () => {
    readModel = new FakeReadModel();
    commands = new FakeCommandSender();
    storedAlerts = [];
    alertLimits = [];
    const app = createDashboardApp({
      audit: new InMemoryAuditLog(),
      readModel,
      alerts: {
        newest: async (limit) => {
          alertLimits.push(limit);
          return storedAlerts.slice(0, limit);
        },
      },
      queues: systemQueueNames(['inventory', 'payment']).map((n) => bus.queue(n)),
      commands,
      auth: new DashboardCredentials([{ role: 'operator', name: 'alice', token: TOKEN }]),
      logger: pino({ level: 'silent' }),
      redisReady: () => bus.isReady(),
      instanceId: 'dashboard-test',
      queuePrefix: 'sas-test',
      now: () => new Date('2025-03-01T00:00:00.000Z'),
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    await Promise.all(systemQueueNames(['inventory', 'payment']).map((n) => bus.queue(n).obliterate({ force: true })));
  });

  const seed = (): void => {
    readModel.processes = [
      processDoc({ _id: 'p1', orderId: 'A-1', state: 'Processed', updatedAt: new Date('2025-01-01T00:00:01.000Z') }),
      processDoc({ _id: 'p2', orderId: 'A-2', state: 'Error', workflow: 'fast-manual', updatedAt: new Date('2025-01-01T00:00:03.000Z') }),
      processDoc({ _id: 'p3', orderId: 'A-3', state: 'Processed', updatedAt: new Date('2025-01-01T00:00:02.000Z') }),
    ];
    const p2 = readModel.processes[1]!;
    readModel.events = [historyEntry(p2), historyEntry(p2, { from: 'Pending', to: 'Processing', why: 'claimed by scheduler-1', attempt: 1 })];
  };

  describe('listing processes', () => {
    it('answers the newest first, with the cursor of the next page when the page is full', async () => {
      seed();
      const page = await get('/api/processes?limit=2');
      expect(page.status).toBe(200);
      expect((page.body['processes'] as { _id: string }[]).map((p) => p._id)).toEqual(['p2', 'p3']);
      expect(page.body['next']).toBe('2025-01-01T00:00:02.000Z~p3');
      const rest = await get(`/api/processes?limit=2&before=${String(page.body['next'])}`);
      expect((rest.body['processes'] as { _id: string }[]).map((p) => p._id)).toEqual(['p1']);
      expect(rest.body['next']).toBeNull();
    });

    it('filters by state', async () => {
      seed();
      const page = await get('/api/processes?state=Processed');
      expect((page.body['processes'] as { _id: string }[]).map((p) => p._id)).toEqual(['p3', 'p1']);
    });

    it.each([
      ['limit=abc', /limit must be a whole number from 1 to 500; leave it out for 50 \(got 'abc'\)/],
      ['state=Done', /state must be one of Pending, .* \(got 'Done'\)/],
      ['colour=red', /unknown query parameter/],
    ])('answers 400 with a message for %s and does not query the store', async (query, message) => {
      const res = await get(`/api/processes?${query}`);
      expect(res.status).toBe(400);
      expect(res.body['error']).toMatch(message);
      expect(readModel.listQueries).toEqual([]);
    });
  });

  describe('inspecting one process', () => {
    it('answers the document and its history, by process id or by orderId', async () => {
      seed();
      for (const id of ['p2', 'A-2']) {
        const res = await get(`/api/processes/${id}`);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ _id: 'p2', orderId: 'A-2', state: 'Error', updatedAt: '2025-01-01T00:00:03.000Z' });
        expect((res.body['history'] as { why: string }[]).map((h) => h.why)).toEqual(['submitted', 'claimed by scheduler-1']);
      }
    });

    it('answers 404 saying what to check when no process has that id', async () => {
      const res = await get('/api/processes/nope');
      expect(res.status).toBe(404);
      expect(res.body['error']).toBe("No process has the id or orderId 'nope'; check the id, or it was removed after its retention period");
    });
  });

  describe('resubmit and cancel', () => {
    it('sends the command for the process found by orderId, naming the signed-in operator and the reason, and answers the result', async () => {
      seed();
      const res = await post('/api/processes/A-2/resubmit', JSON.stringify({ by: 'bob', reason: 'remote fixed' }));
      expect(res.status).toBe(200);
      expect(commands.sent).toEqual([{ command: 'resubmit', processId: 'p2', by: 'operator:alice', reason: 'remote fixed' }]);
      expect(res.body).toEqual({ schemaVersion: SCHEMA_VERSION, processId: 'p2', command: 'resubmit', ok: true, message: 'resubmit by operator:alice' });
    });

    it('accepts an empty JSON body', async () => {
      seed();
      const res = await post('/api/processes/p2/cancel', '', { 'content-type': 'application/json' });
      expect(res.status).toBe(200);
      expect(commands.sent).toEqual([{ command: 'cancel', processId: 'p2', by: 'operator:alice' }]);
    });

    it.each([
      ['no content type', undefined, undefined, 'none'],
      ['an HTML form', 'reason=x', 'application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
      ['a text/plain body', '{"reason":"x"}', 'text/plain', 'text/plain'],
    ])('refuses a write with %s (415), before anything reads it', async (_what, body, type, named) => {
      seed();
      const res = await post('/api/processes/p2/cancel', body, type === undefined ? {} : { 'content-type': type });
      expect(res.status).toBe(415);
      expect(res.body['error']).toBe(`POST /api/processes/p2/cancel accepts only Content-Type: application/json (got ${named}); send a JSON object such as {"reason":"customer asked"}, or {} for none`);
      expect(commands.sent).toEqual([]);
    });

    it('answers 409 with the scheduler’s reason when it refuses', async () => {
      seed();
      commands.answer = (s) => ({ answered: true, result: { schemaVersion: 1, processId: s.processId, command: s.command, ok: false, message: 'process is Processed; only unfinished processes can be canceled' } });
      const res = await post('/api/processes/p1/cancel', '{}');
      expect(res.status).toBe(409);
      expect(res.body['error']).toBe('The scheduler refused to cancel p1: process is Processed; only unfinished processes can be canceled');
      expect(res.body['result']).toMatchObject({ ok: false });
    });

    it('answers 504 saying what to check when no scheduler answers', async () => {
      seed();
      commands.answer = () => ({ answered: false, waitedMs: 1234 });
      const res = await post('/api/processes/p2/resubmit', '{}');
      expect(res.status).toBe(504);
      expect(res.body['error']).toMatch(/^No scheduler answered 'resubmit p2' within 1234 ms; check that schedulers are running/);
    });

    it('answers 404 and sends nothing for an unknown process', async () => {
      const res = await post('/api/processes/ghost/cancel', '{}');
      expect(res.status).toBe(404);
      expect(commands.sent).toEqual([]);
    });

    it('answers 400 for a bad body, and for a body that is not JSON, without a stack trace', async () => {
      seed();
      const unknownField = await post('/api/processes/p2/cancel', JSON.stringify({ force: true }));
      expect(unknownField.status).toBe(400);
      expect(unknownField.body['error']).toMatch(/only by and reason are accepted \(got 'force'\)/);
      const malformed = await post('/api/processes/p2/cancel', '{"by":');
      expect(malformed.status).toBe(400);
      expect(malformed.body['error']).toMatch(/^Bad request: the body is not valid JSON/);
      expect(JSON.stringify(malformed.body)).not.toMatch(/\bat .*\.js:\d+/);
      expect(commands.sent).toEqual([]);
    });

    it('refuses a command posted from another site’s page (403) but takes one from its own page', async () => {
      seed();
      const foreign = await post('/api/processes/p2/cancel', '{}', { origin: 'http://evil.example' });
      expect(foreign.status).toBe(403);
      expect(foreign.body['error']).toMatch(/^Cross-origin request refused/);
      expect(commands.sent).toEqual([]);
      const own = await post('/api/processes/p2/cancel', '{}', { origin: base });
      expect(own.status).toBe(200);
    });
  });

  describe('the overview', () => {
    it('summarises processes, queue depths, dead letters and breakers', async () => {
      seed();
      readModel.breakerStates = [
        { _id: 'payment/a', agent: 'payment', instanceId: 'a', state: 'open', retryAt: new Date('2025-01-01T00:00:09.000Z'), updatedAt: new Date('2025-01-01T00:00:00.000Z'), deleteTime: new Date('2025-01-02T00:00:00.000Z') },
      ];
      await bus.send(QueueNames.submission, { n: 1 });
      await bus.send(QueueNames.submission, { n: 2 });
      await bus.send(QueueNames.agentRequests('payment'), { n: 3 }, { delayMs: 60_000 });
      await bus.deadLetter({ queue: 'submission', reason: 'bad', issues: [], original: {} });
      const res = await get('/api/summary');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        processes: { total: 3, byState: { Processed: 2, Error: 1, Pending: 0 }, byWorkflow: { 'fast-manual': 1, 'order-fulfilment': 2 } },
        deadLetters: 1,
        breakers: [{ agent: 'payment', instanceId: 'a', state: 'open', retryAt: '2025-01-01T00:00:09.000Z' }],
        at: '2025-03-01T00:00:00.000Z',
      });
      const queues = res.body['queues'] as Record<string, unknown>;
      expect(Object.keys(queues)).toEqual(systemQueueNames(['inventory', 'payment']));
      expect(queues['submission']).toEqual({ waiting: 2, active: 0, delayed: 0, failed: 0 });
      expect(queues['agent.payment.requests']).toEqual({ waiting: 0, active: 0, delayed: 1, failed: 0 });
    });

    it('lists the stored alerts as the store answers them, with the limit asked, and refuses a bad limit', async () => {
      const alert = { schemaVersion: 1 as const, kind: 'ThresholdReached' as const, reason: 'alert 2', at: 2 };
      storedAlerts = [alertRecord(alert, 'p-2.3.0', new Date('2025-01-01T00:00:02.000Z'), 1000), alertRecord({ ...alert, reason: 'alert 1', at: 1 }, 'p-1.3.0', new Date(1000), 1000)];
      const res = await get('/api/alerts?limit=1');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ alerts: [{ id: 'p-2.3.0', receivedAt: '2025-01-01T00:00:02.000Z', data: alert }] });
      expect((await get('/api/alerts')).body['alerts']).toHaveLength(2);
      expect(alertLimits).toEqual([1, 50]);
      const bad = await get('/api/alerts?limit=501');
      expect(bad.status).toBe(400);
      expect(bad.body['error']).toMatch(/limit must be a whole number from 1 to 500/);
    });

    it('lists dead letters with their reason, and refuses a bad limit', async () => {
      await bus.deadLetter({ queue: 'scheduler.replies', reason: 'invalid message', issues: ['step: Required'], original: { x: 1 } });
      const res = await get('/api/dead-letters');
      expect(res.status).toBe(200);
      expect(res.body['deadLetters']).toEqual([
        { id: expect.any(String), queuedAt: expect.any(String), data: expect.objectContaining({ queue: 'scheduler.replies', reason: 'invalid message', issues: ['step: Required'] }) },
      ]);
      const bad = await get('/api/dead-letters?limit=abc');
      expect(bad.status).toBe(400);
      expect(bad.body['error']).toMatch(/limit must be a whole number/);
    });

    it('lists breaker documents', async () => {
      readModel.breakerStates = [
        { _id: 'shipping/x', agent: 'shipping', instanceId: 'x', state: 'closed', retryAt: null, updatedAt: new Date(0), deleteTime: new Date(0) },
      ];
      const res = await get('/api/breakers');
      expect(res.body).toEqual({ breakers: [expect.objectContaining({ _id: 'shipping/x', state: 'closed' })] });
    });
  });

  describe('when the store fails', () => {
    it('answers 500 with the cause and what to check, never a stack trace, and /readyz says 503', async () => {
      readModel.failure = new Error('connection refused');
      const res = await get('/api/processes');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: expect.stringMatching(/^The dashboard could not answer GET \/api\/processes: connection refused\. Check that MongoDB and Redis are reachable/) });
      const ready = await get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ ready: false, mongo: false, redis: true });
    });
  });

  describe('the other pages', () => {
    it('answers /healthz and /readyz', async () => {
      expect((await get('/healthz')).text).toBe('ok\n');
      const ready = await get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ ready: true, mongo: true, redis: true });
    });

    it('serves bull-board at /queues with every system queue, read-only', async () => {
      const page = await get('/queues');
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(page.text).toMatch(/<div id="root">/);
      const api = await get('/queues/api/queues');
      const queues = api.body['queues'] as { name: string; readOnlyMode: boolean }[];
      expect(queues.map((q) => q.name).sort()).toEqual(systemQueueNames(['inventory', 'payment']).sort());
      expect(queues.every((q) => q.readOnlyMode)).toBe(true);
    });

    it('sends the same security headers on the page, the API and bull-board, each framing-proof', async () => {
      for (const path of ['/', '/api/summary', '/queues', '/queues/api/queues', '/healthz']) {
        const res = await fetch(`${base}${path}`, { headers: AS_ALICE });
        expect([path, res.headers.get('x-frame-options')]).toEqual([path, 'DENY']);
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(res.headers.get('x-powered-by')).toBeNull();
        expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
        expect(res.headers.get('referrer-policy')).toBe('same-origin');
      }
      const board = (await fetch(`${base}/queues`, { headers: AS_ALICE })).headers.get('content-security-policy');
      expect(board).toMatch(/default-src 'none';.*script-src 'self';style-src 'self' 'sha256-/);
      expect(board).not.toContain('unsafe-inline');
    });

    it('serves the page with a content security policy and a fresh nonce', async () => {
      const first = await get('/');
      const second = await get('/');
      expect(first.status).toBe(200);
      const nonce = /script-src 'nonce-([^']+)'/.exec(first.headers.get('content-security-policy') ?? '')?.[1];
      expect(first.text).toContain(`<script nonce="${nonce}">`);
      expect(second.headers.get('content-security-policy')).not.toBe(first.headers.get('content-security-policy'));
      expect(first.text).toContain('instance dashboard-test · queue prefix sas-test');
    });

    it('marks every API answer Cache-Control: no-store, errors and refusals included', async () => {
      for (const path of ['/api/processes', '/api/processes/p1', '/api/summary', '/api/breakers', '/api/dead-letters', '/api/alerts', '/api/audit', '/api/nothing', '/queues/api/queues']) {
        const res = await fetch(`${base}${path}`, { headers: AS_ALICE });
        expect([path, res.headers.get('cache-control')]).toEqual([path, 'no-store']);
      }
      const refused = await fetch(`${base}/api/summary`);
      expect([refused.status, refused.headers.get('cache-control')]).toEqual([401, 'no-store']);
    });

    it('refuses a query parameter a route does not take with 400 naming it, and sends nothing', async () => {
      for (const path of ['/api/summary?verbose=1', '/api/breakers?limt=5', '/api/processes/p1?full=true', '/api/dead-letters?limt=5', '/api/processes?stat=Error']) {
        const res = await get(path);
        expect([path, res.status]).toEqual([path, 400]);
        expect(String(res.body['error'])).toMatch(/^Bad request query: .*unknown query parameter.*'(verbose|limt|full|stat)'/);
      }
      const cancel = await post('/api/processes/p1/cancel?force=true', '{}');
      expect([cancel.status, cancel.body['error']]).toEqual([400, "Bad request query: unknown query parameter 'force'; POST /api/processes/:id/cancel takes no query parameters"]);
      expect(commands.sent).toEqual([]);
    });

    it('answers an unknown API path with a JSON 404', async () => {
      const res = await get('/api/nothing');
      expect(res.status).toBe(404);
      expect(res.body['error']).toMatch(/^No API endpoint GET \/api\/nothing; see GET \/api\/processes/);
    });
  });
});
