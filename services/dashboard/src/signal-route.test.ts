import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Bus } from '@sas/bus';
import { SCHEMA_VERSION, type SignalResult } from '@sas/contracts';
import { systemClock } from '@sas/runtime';
import { startRedis, type RedisServer } from '@sas/stack';
import { ManualClock, uniqueName } from '@sas/testkit';
import { pino } from 'pino';
import { createDashboardApp } from './dashboard-app';
import { DashboardCredentials } from './dashboard-credentials';
import { systemQueueNames } from './queue-catalog';
import { FakeCommandSender } from './test-support/fake-command-sender';
import { FakeReadModel } from './test-support/fake-read-model';
import { InMemoryAuditLog } from './test-support/in-memory-audit-log';
import { processDoc } from './test-support/process-doc';
import type { SignalRequest, SignalSendOutcome, SignalSender } from './signal-sender';

const OPERATOR = 'c1f0a7e3b29d4c58a6e01f7b3d92c4e8';
const VIEWER = 'd8e2b4a61c07f93e5b2a8d4c1f6e0b97';
const OPERATOR_ID = `operator:${createHash('sha256').update(OPERATOR).digest('hex').slice(0, 6)}`;

/** Records the signals asked for and answers as the test scripts it (kept here: test code stays out of the build). */
class FakeSignalSender implements SignalSender {
  readonly sent: SignalRequest[] = [];
  answer: (request: SignalRequest) => SignalSendOutcome = (request) => ({ answered: true, result: result(request, true, 'kept', `signal ${request.name} kept until step approval is reached`) });

  async send(request: SignalRequest): Promise<SignalSendOutcome> {
    this.sent.push(request);
    return this.answer(request);
  }
}

function result(request: SignalRequest, ok: boolean, outcome: SignalResult['outcome'], message: string): SignalResult {
  return { schemaVersion: SCHEMA_VERSION, signalId: request.signalId ?? 'derived-id', processId: request.processId, orderId: null, name: request.name, ok, outcome, message };
}

describe('POST /api/processes/:id/signal', () => {
  let redis: RedisServer;
  let bus: Bus;
  let server: Server | undefined;
  let base: string;
  let signals: FakeSignalSender;
  let audit: InMemoryAuditLog;

  const post = async (path: string, token: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  /** Audit entries are stored once the answer is sent: wait (with a deadline) for the one looked for. */
  const auditEntry = async (match: (e: InMemoryAuditLog['entries'][number]) => boolean): Promise<InMemoryAuditLog['entries'][number]> => {
    const deadline = Date.now() + 2_000;
    while (!audit.entries.some(match) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const found = audit.entries.find(match);
    if (!found) throw new Error(`no such audit entry; recorded: ${JSON.stringify(audit.entries)}`);
    return found;
  };

  beforeAll(async () => {
    redis = await startRedis();
    bus = new Bus({ redisUrl: redis.url, prefix: uniqueName('dashboard-signal'), instanceId: 'test', logger: pino({ level: 'silent' }), clock: systemClock });
  });
  afterAll(async () => {
    await bus?.close();
    await redis?.stop();
  });
  beforeEach(async () => {
    audit = new InMemoryAuditLog();
    signals = new FakeSignalSender();
    const readModel = new FakeReadModel();
    readModel.processes = [processDoc({ _id: 'p1', orderId: 'A-1', state: 'Pending' })];
    const app = createDashboardApp({
      audit,
      readModel,
      alerts: { newest: async () => [] },
      queues: systemQueueNames([]).map((n) => bus.queue(n)),
      commands: new FakeCommandSender(),
      signals,
      auth: new DashboardCredentials(
        [
          { role: 'operator', token: OPERATOR },
          { role: 'viewer', name: 'val', token: VIEWER },
        ],
        { sessionTtlMs: 3_600_000, clock: new ManualClock(Date.UTC(2030, 0, 1)) },
      ),
      logger: pino({ level: 'silent' }),
      redisReady: () => bus.isReady(),
      instanceId: 'signal-test',
      queuePrefix: 'sas-test',
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server!.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  it('sends the signal by process id under the operator’s principal, answers what the scheduler said, and audits it', async () => {
    const res = await post('/api/processes/A-1/signal', OPERATOR, { name: 'approval', data: { approved: true }, signalId: 'approval-1' });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ outcome: 'kept', ok: true, signalId: 'approval-1', message: 'signal approval kept until step approval is reached' });
    expect(signals.sent).toEqual([{ processId: 'p1', name: 'approval', data: { approved: true }, by: OPERATOR_ID, signalId: 'approval-1' }]);
    const entry = await auditEntry((e) => e.action === 'process.signal');
    expect(entry).toMatchObject({ principal: OPERATOR_ID, target: 'process p1', orderId: 'A-1', outcome: 'ok', status: 200, detail: 'signal approval (approval-1): kept' });
  });

  it('answers 409 with the scheduler’s reason when the process has finished, and audits the refusal', async () => {
    signals.answer = (request) => ({ answered: true, result: result(request, false, 'refused', 'process is Compensated; signal not used') });
    const res = await post('/api/processes/p1/signal', OPERATOR, { name: 'approval' });

    expect(res.status).toBe(409);
    expect(res.body['error']).toBe("The scheduler refused signal 'approval' for p1: process is Compensated; signal not used");
    expect(signals.sent).toEqual([{ processId: 'p1', name: 'approval', data: null, by: OPERATOR_ID }]);
    expect(await auditEntry((e) => e.action === 'process.signal')).toMatchObject({ outcome: 'refused', status: 409 });
  });

  it('answers 504 saying a repeat is safe when no scheduler answers', async () => {
    signals.answer = () => ({ answered: false, waitedMs: 15_000 });
    const res = await post('/api/processes/p1/signal', OPERATOR, { name: 'approval' });

    expect(res.status).toBe(504);
    expect(res.body['error']).toContain('Sending it again is safe: the same signal counts once');
    expect(await auditEntry((e) => e.action === 'process.signal')).toMatchObject({ outcome: 'failed', status: 504 });
  });

  it('refuses a viewer with 403 and sends nothing, recording the refusal', async () => {
    const res = await post('/api/processes/p1/signal', VIEWER, { name: 'approval' });

    expect(res.status).toBe(403);
    expect(signals.sent).toEqual([]);
    // Refused before the route runs, so recorded as a write of that route (as for cancel).
    expect(await auditEntry((e) => e.route === 'POST /api/processes/p1/signal')).toMatchObject({ principal: 'viewer:val', outcome: 'refused', status: 403 });
  });

  it('answers 400 naming the field for a bad body, and 404 for an unknown process, sending nothing', async () => {
    const badName = await post('/api/processes/p1/signal', OPERATOR, { name: 'a b' });
    expect(badName.status).toBe(400);
    expect(String(badName.body['error'])).toContain('name must be lower-case words joined by -');
    const extra = await post('/api/processes/p1/signal', OPERATOR, { name: 'approval', force: true });
    expect(extra.status).toBe(400);
    expect(String(extra.body['error'])).toContain('only name, data and signalId are accepted');
    // Deep nesting is the same 400 with or without a signalId (without, it used to overflow the stack hashing the default id).
    const deep = `{"d":${'['.repeat(7800)}${']'.repeat(7800)}}`;
    for (const id of ['', '"signalId":"sig-1",']) {
      const nested = await fetch(`${base}/api/processes/p1/signal`, { method: 'POST', headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' }, body: `{${id}"name":"approval","data":${deep}}` });
      expect([nested.status, ((await nested.json()) as { error: string }).error]).toEqual([400, expect.stringContaining('data: the data nests more than 32 levels')]);
    }
    const ghost = await post('/api/processes/ghost/signal', OPERATOR, { name: 'approval' });
    expect([ghost.status, ghost.body['error']]).toEqual([404, "No process has the id or orderId 'ghost'; check the id, or it was removed after its retention period"]);
    expect(signals.sent).toEqual([]);
  });
});
