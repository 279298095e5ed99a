import type { ProcessDocument, ProcessEventEntry } from '@sas/contracts';
import { REDIS_TOPOLOGIES } from '@sas/testkit';
import { SystemFixture } from '../support/system-fixture';
import { fastRoleEnv } from '../support/test-workflows';

type Json = Record<string, unknown>;
type ProcessWithHistory = ProcessDocument & { history: ProcessEventEntry[] };

describe.each(REDIS_TOPOLOGIES)('the dashboard (real processes, private %s Redis)', (redisTopology) => {
  let fx: SystemFixture;
  let url: string;
  /** The random operator token LocalSystem gave the dashboard (`DASHBOARD_TOKENS=operator:local:<token>`). */
  let token: string;

  const call = async (method: 'GET' | 'POST', path: string, body?: Json, auth: 'operator' | 'none' = 'operator'): Promise<{ status: number; body: Json; text: string }> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(auth === 'operator' ? { authorization: `Bearer ${token}` } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    const json = (res.headers.get('content-type') ?? '').includes('json') ? (JSON.parse(text) as Json) : {};
    return { status: res.status, body: json, text };
  };
  const get = (path: string) => call('GET', path);
  const listed = async (query: string): Promise<ProcessDocument[]> => (await get(`/api/processes?${query}`)).body['processes'] as ProcessDocument[];

  beforeAll(async () => {
    fx = await SystemFixture.start('dashboard', { schedulers: 1, supervisors: 1, dashboard: 1 }, fastRoleEnv(), { redisTopology });
    // The dashboard consumes `alerts` here; the fixture's own collector would take some of them
    // (each job goes to one consumer), so it stops before any order is submitted.
    await fx.alerts.close();
    const [dashboard] = fx.system.byRole('dashboard');
    const ready = dashboard?.lines.find((l) => l.json?.['msg'] === 'dashboard ready');
    url = String(ready?.json?.['url']);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    token = String(fx.system.dashboardToken);
    expect(token.length).toBeGreaterThanOrEqual(16);
  });
  afterAll(() => fx?.stop());
  afterEach(async () => {
    await fx.remote('/admin/faults', { method: 'DELETE' });
  });

  describe('after a few orders, one of them refused by shipping', () => {
    const done = ['dash-ok-1', 'dash-ok-2', 'dash-ok-3'];
    const refused = 'dash-refused-1';
    let docs: ProcessDocument[];

    beforeAll(async () => {
      await fx.setFaults('shipping', { permanentFailOrders: [refused] });
      await fx.submit([...done, refused].map((id) => fx.order(id, { workflow: 'fast-fulfilment' })));
      docs = [...(await fx.waitForStates(done, ['Processed'], 30_000)), ...(await fx.waitForStates([refused], ['Compensated'], 30_000))];
    });

    it('counts them by state and workflow in the summary, with every queue and no dead letters', async () => {
      const summary = await get('/api/summary');
      expect(summary.status).toBe(200);
      expect(summary.body['processes']).toEqual({
        total: 4,
        byState: { Pending: 0, Processing: 0, Processed: 3, Error: 0, Compensating: 0, Compensated: 1, Canceled: 0 },
        byWorkflow: { 'fast-fulfilment': 4 },
      });
      expect(Object.keys(summary.body['queues'] as Json)).toEqual([
        'submission',
        'scheduler.ready',
        'scheduler.replies',
        'alerts',
        'dead-letter',
        'operator.commands',
        'process.signals',
        'agent.inventory.requests',
        'agent.payment.requests',
        'agent.shipping.requests',
      ]);
      expect(summary.body['deadLetters']).toBe(0);
      // Agents report their breakers every 500 ms in these tests.
      const withBreakers = await fx.stack.waitFor(
        async () => {
          const s = await get('/api/summary');
          return (s.body['breakers'] as { agent: string }[]).length === 3 ? s : null;
        },
        { timeoutMs: 10_000, description: 'the three agents’ breakers in the summary' },
      );
      expect((withBreakers.body['breakers'] as { agent: string; state: string }[]).map((b) => `${b.agent}:${b.state}`)).toEqual([
        'inventory:closed',
        'payment:closed',
        'shipping:closed',
      ]);
    });

    it('shows every queue with its jobs through bull-board’s API', async () => {
      const board = await get('/queues/api/queues?activeQueue=submission&status=completed&page=1&jobsPerPage=50');
      expect(board.status).toBe(200);
      const queues = board.body['queues'] as { name: string; counts: Record<string, number>; jobs: { data: { orderId?: string } }[] }[];
      expect(queues.map((q) => q.name).sort()).toEqual(
        ['agent.inventory.requests', 'agent.payment.requests', 'agent.shipping.requests', 'alerts', 'dead-letter', 'operator.commands', 'process.signals', 'scheduler.ready', 'scheduler.replies', 'submission'].sort(),
      );
      const byName = new Map(queues.map((q) => [q.name, q]));
      // The four submissions were taken and completed; their jobs are read from the queue's own slot.
      expect(byName.get('submission')?.counts['completed']).toBe(4);
      expect(byName.get('submission')?.jobs.map((j) => j.data.orderId).sort()).toEqual([...done, refused].sort());
      expect(byName.get('agent.shipping.requests')?.counts['completed']).toBeGreaterThanOrEqual(4);
      expect(byName.get('dead-letter')?.counts['waiting']).toBe(0);
    });

    it('lists them last updated first, and filters by state, orderId and workflow with paging', async () => {
      const all = await listed('');
      expect(all.map((p) => p.orderId).sort()).toEqual([...done, refused].sort());
      const times = all.map((p) => Date.parse(String(p.updatedAt)));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      expect((await listed('state=Compensated')).map((p) => p.orderId)).toEqual([refused]);
      expect((await listed('orderId=dash-ok-2')).map((p) => p.orderId)).toEqual(['dash-ok-2']);
      const first = await get('/api/processes?workflow=fast-fulfilment&limit=3');
      const next = first.body['next'];
      expect(typeof next).toBe('string');
      const rest = await listed(`workflow=fast-fulfilment&limit=3&before=${encodeURIComponent(String(next))}`);
      const paged = [...(first.body['processes'] as ProcessDocument[]), ...rest].map((p) => p.orderId);
      expect(paged.sort()).toEqual([...done, refused].sort());
    });

    it('shows a process with its steps and its history, by orderId', async () => {
      const res = await get(`/api/processes/${refused}`);
      expect(res.status).toBe(200);
      const doc = res.body as unknown as ProcessWithHistory;
      expect(doc._id).toBe(docs.find((d) => d.orderId === refused)?._id);
      expect(doc.state).toBe('Compensated');
      expect(doc.steps.map((s) => s.state)).toEqual(['Compensated', 'Compensated', 'Failed']);
      const moves = doc.history.map((h) => `${h.from ?? 'new'}->${h.to}`);
      expect(moves[0]).toBe('new->Pending');
      expect(moves).toContain('Processing->Compensating');
      expect(moves.at(-1)).toBe('Compensating->Compensated');
      for (const h of doc.history) {
        expect(h).toEqual(expect.objectContaining({ who: expect.any(String), why: expect.any(String), attempt: expect.any(Number) }));
      }
    });

    it('answers 409 with the scheduler’s reason when asked to cancel a finished order', async () => {
      const processed = docs.find((d) => d.orderId === 'dash-ok-1')!;
      const res = await call('POST', `/api/processes/${processed._id}/cancel`, { by: 'e2e-operator', reason: 'too late' });
      expect(res.status).toBe(409);
      expect(res.body['error']).toBe(`The scheduler refused to cancel ${processed._id}: process is Processed; only unfinished processes can be canceled`);
      const [after] = await fx.processes({ orderId: 'dash-ok-1' });
      expect(after?.state).toBe('Processed');
    });
  });

  describe('when an order reaches Error and an operator resubmits it from the dashboard', () => {
    it('shows the alert, answers 200 with the scheduler’s result, and the order completes', async () => {
      const id = 'dash-manual-1';
      await fx.setFaults('inventory', { hang: true });
      await fx.submit([fx.order(id, { workflow: 'fast-manual' })]);
      const [errored] = await fx.waitForStates([id], ['Error'], 30_000);
      await fx.remote('/admin/faults/inventory', { method: 'DELETE' });

      const alerts = await fx.stack.waitFor(
        async () => {
          const list = (await get('/api/alerts')).body['alerts'] as { id: string; data: Json }[];
          return list.find((a) => a.data['orderId'] === id);
        },
        { timeoutMs: 10_000, description: 'the ThresholdReached alert in /api/alerts' },
      );
      expect(alerts.data).toMatchObject({ kind: 'ThresholdReached', step: 'reserve-inventory' });
      expect(await fx.db.collection<{ _id: string }>('alerts').findOne({ _id: alerts.id })).toMatchObject({ alert: { orderId: id, kind: 'ThresholdReached' } });
      expect((await listed('state=Error')).map((p) => p.orderId)).toEqual([id]);

      const res = await call('POST', `/api/processes/${id}/resubmit`, { by: 'e2e-operator', reason: 'inventory is back' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ processId: errored!._id, command: 'resubmit', ok: true });
      // The history names the signed-in operator, not the body's `by`.
      expect(res.body['message']).toMatch(/^resubmitted by operator:local from reserve-inventory: inventory is back$/);
      await fx.waitForStates([id], ['Processed'], 30_000);
      const shown = (await get(`/api/processes/${errored!._id}`)).body as unknown as ProcessWithHistory;
      expect(shown.state).toBe('Processed');
      expect(shown.history.some((h) => h.from === 'Error' && h.to === 'Pending' && /resubmitted by operator:local from reserve-inventory: inventory is back/.test(h.why))).toBe(true);
    });
  });

  describe('the pages', () => {
    it('serves bull-board at /queues', async () => {
      const res = await get('/queues');
      expect(res.status).toBe(200);
      expect(res.text).toMatch(/<div id="root">/);
    });

    it('serves a self-contained page at / with no external URL', async () => {
      const res = await get('/');
      expect(res.status).toBe(200);
      expect(res.text).toContain('<title>sas dashboard</title>');
      expect(res.text).not.toMatch(/https?:\/\//);
    });

    it('answers /healthz and reports MongoDB and Redis reachable on /readyz, without credentials', async () => {
      expect((await call('GET', '/healthz', undefined, 'none')).status).toBe(200);
      expect((await call('GET', '/readyz', undefined, 'none')).body).toEqual({ ready: true, mongo: true, redis: true });
    });

    it('answers 401 to the API, the page and bull-board without credentials', async () => {
      for (const path of ['/api/summary', '/', '/queues']) expect((await call('GET', path, undefined, 'none')).status).toBe(401);
      const post = await call('POST', '/api/processes/dash-ok-1/cancel', {}, 'none');
      expect(post.status).toBe(401);
      expect(post.body['error']).toMatch(/^Not signed in: POST \/api\/processes\/dash-ok-1\/cancel needs Authorization: Bearer <token>/);
    });

    it('signs a browser in through the login URL the demo prints', async () => {
      const login = await fetch(`${url}/login?token=${token}`, { redirect: 'manual' });
      expect(login.status).toBe(303);
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
      const page = await fetch(`${url}/`, { headers: { cookie } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<title>sas dashboard</title>');
    });
  });

  describe('bad input', () => {
    it.each([
      ['/api/processes?limit=abc', 400, /limit must be a whole number from 1 to 500/],
      ['/api/processes?state=Finished', 400, /state must be one of Pending, Processing/],
      ['/api/alerts?limit=0', 400, /limit must be a whole number/],
      ['/api/processes/no-such-process', 404, /No process has the id or orderId 'no-such-process'/],
    ])('GET %s answers %d with a message', async (path, status, message) => {
      const res = await get(path);
      expect(res.status).toBe(status);
      expect(res.body['error']).toMatch(message);
    });
  });
});
