import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BulkOperationService, InMemoryBulkCandidates, InMemoryBulkOperationStore } from '@sas/bulk';
import { pino } from 'pino';
import { createDashboardApp } from './dashboard-app';
import { DashboardCredentials } from './dashboard-credentials';
import { FakeCommandSender } from './test-support/fake-command-sender';
import { FakeReadModel } from './test-support/fake-read-model';
import { processDoc } from './test-support/process-doc';
import { InMemoryAuditLog } from './test-support/in-memory-audit-log';

const OPERATOR = 'a6ecff892b26155db43753179423b482';
const VIEWER = 'bbf699a08206fa05877d9c01aa1b284a';
const NOW = new Date('2025-03-01T00:00:00.000Z');

describe('/api/bulk (in-memory operations, no scheduler)', () => {
  let server: Server;
  let base: string;
  let operations: InMemoryBulkOperationStore;

  const call = async (method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  beforeEach(async () => {
    operations = new InMemoryBulkOperationStore();
    const processes = [
      processDoc({ _id: 'p1', state: 'Error', reason: 'payment refused: card declined' }),
      processDoc({ _id: 'p2', state: 'Error', reason: 'inventory timed out' }),
      processDoc({ _id: 'p3', state: 'Processed' }),
    ];
    let ids = 0;
    const bulk = new BulkOperationService(operations, new InMemoryBulkCandidates(() => processes), { now: () => NOW.getTime() }, () => `bulk-${++ids}`);
    const app = createDashboardApp({
      audit: new InMemoryAuditLog(),
      readModel: new FakeReadModel(),
      alerts: { newest: async () => [] },
      queues: [],
      commands: new FakeCommandSender(),
      auth: new DashboardCredentials([
        { role: 'operator', name: 'olga', token: OPERATOR },
        { role: 'viewer', name: 'val', token: VIEWER },
      ]),
      logger: pino({ level: 'silent' }),
      redisReady: () => true,
      instanceId: 'bulk-test',
      queuePrefix: 'sas-test',
      bulk,
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('starts an operation for an operator: 202 with its id, recorded with who asked and how many match', async () => {
    const res = await call('POST', '/api/bulk', OPERATOR, { command: 'resubmit', filter: { state: 'Error', text: 'declined' }, reason: 'card processor fixed' });
    expect(res.status).toBe(202);
    expect(res.body['id']).toBe('bulk-1');
    expect(await operations.get('bulk-1')).toMatchObject({ command: 'resubmit', by: 'operator:olga', reason: 'card processor fixed', expected: 1, state: 'Running' });

    const shown = await call('GET', '/api/bulk/bulk-1', VIEWER);
    expect(shown).toMatchObject({ status: 200, body: { _id: 'bulk-1', progress: { matched: 0, done: 0 } } });
    const listed = await call('GET', '/api/bulk', VIEWER);
    expect((listed.body['operations'] as { _id: string }[]).map((o) => o._id)).toEqual(['bulk-1']);
  });

  it('answers a dry run with the match count and starts nothing', async () => {
    const res = await call('POST', '/api/bulk', OPERATOR, { command: 'cancel', filter: { state: 'Error' }, reason: 'r', dryRun: true });
    expect(res).toEqual({ status: 200, body: { dryRun: true, matched: 2 } });
    expect(await operations.list(10)).toEqual([]);
  });

  it('returns the existing operation for a repeated client id, and 409 for that id with another request', async () => {
    const request = { id: 'ops-7', command: 'cancel', filter: { state: 'Error' }, reason: 'r' };
    expect((await call('POST', '/api/bulk', OPERATOR, request)).status).toBe(202);
    expect(await call('POST', '/api/bulk', OPERATOR, request)).toMatchObject({ status: 200, body: { id: 'ops-7' } });
    const other = await call('POST', '/api/bulk', OPERATOR, { ...request, reason: 'another' });
    expect(other).toMatchObject({ status: 409, body: { id: 'ops-7', error: 'bulk operation ops-7 exists with a different command, filter or reason; choose another id, or leave id out to get a new one' } });
    expect(await operations.list(10)).toHaveLength(1);
  });

  it.each([
    [{ command: 'resubmit', filter: { state: 'Broken' }, reason: 'r' }, 'Bad request body: filter.state.0: state must be one of Pending, Processing, Processed, Error, Compensating, Compensated, Canceled'],
    [{ command: 'resubmit', filter: { state: 'Error', colour: 'red' }, reason: 'r' }, "Bad request body: filter: unknown filter field; use state, workflow, failedStep, timeField, since, until and text"],
    [{ command: 'resubmit', filter: { state: 'Error', since: 'last tuesday' }, reason: 'r' }, 'Bad request body: filter.since: since is not a date; give an ISO 8601 instant such as 2025-01-31T12:00:00Z, or epoch milliseconds'],
    [{ command: 'delete', filter: { state: 'Error' }, reason: 'r' }, "Bad request body: command: Invalid enum value. Expected 'resubmit' | 'cancel', received 'delete' (got 'delete')"],
  ])('refuses a bad request %j with 400 and says what to fix', async (body, error) => {
    const res = await call('POST', '/api/bulk', OPERATOR, body);
    expect(res.status).toBe(400);
    expect(res.body['error']).toContain(error);
    expect(await operations.list(10)).toEqual([]);
  });

  it('refuses a viewer with 403 and starts nothing', async () => {
    const res = await call('POST', '/api/bulk', VIEWER, { command: 'cancel', filter: { state: 'Error' }, reason: 'r' });
    expect(res.status).toBe(403);
    expect(res.body['error']).toBe('viewer:val may only read; POST /api/bulk needs a token with the operator role');
    expect(await operations.list(10)).toEqual([]);
  });

  it('answers 404 for an unknown operation', async () => {
    const res = await call('GET', '/api/bulk/nope', VIEWER);
    expect(res.status).toBe(404);
    expect(res.body['error']).toMatch(/^No bulk operation 'nope'/);
  });
});
