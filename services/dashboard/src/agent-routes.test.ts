import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentPauseRequest } from '@sas/contracts';
import { InMemoryAgentPauseStore, setAgentPause } from '@sas/store';
import { pino } from 'pino';
import type { AgentPauseModel, AgentView } from './agent-pause-model';
import { createDashboardApp } from './dashboard-app';
import { DashboardCredentials } from './dashboard-credentials';
import { FakeCommandSender } from './test-support/fake-command-sender';
import { FakeReadModel } from './test-support/fake-read-model';
import { InMemoryAuditLog } from './test-support/in-memory-audit-log';

const OPERATOR = 'a6ecff892b26155db43753179423b482';
const VIEWER = 'bbf699a08206fa05877d9c01aa1b284a';
const NOW = new Date('2030-01-01T00:00:00.000Z');

/** {@link AgentPauseModel} over the in-memory pause store, with the held counts a test sets. */
class InMemoryAgentPauses implements AgentPauseModel {
  readonly store = new InMemoryAgentPauseStore();
  readonly held = new Map<string, number>();
  constructor(private readonly agents: readonly string[]) {}

  async list(): Promise<AgentView[]> {
    const docs = await this.store.list();
    const names = [...new Set([...this.agents, ...docs.map((d) => d._id)])].sort();
    return names.map((agent) => {
      const d = docs.find((x) => x._id === agent);
      return { agent, paused: d?.paused ?? false, by: d?.by ?? null, reason: d?.reason ?? null, since: d?.since.toISOString() ?? null, held: this.held.get(agent) ?? 0, history: (d?.history ?? []).map((h) => ({ ...h, at: h.at.toISOString() })) };
    });
  }

  async knows(agent: string): Promise<boolean> {
    return this.agents.includes(agent) || (await this.store.get(agent)) !== null;
  }

  set(request: AgentPauseRequest) {
    return setAgentPause(this.store, request);
  }
}

describe('the agents API', () => {
  let server: Server;
  let base: string;
  let pauses: InMemoryAgentPauses;

  const call = async (method: 'GET' | 'POST', path: string, token: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  beforeEach(async () => {
    pauses = new InMemoryAgentPauses(['inventory', 'payment', 'shipping']);
    const app = createDashboardApp({
      audit: new InMemoryAuditLog(),
      readModel: new FakeReadModel(),
      alerts: { newest: async () => [] },
      queues: [],
      commands: new FakeCommandSender(),
      auth: new DashboardCredentials([
        { role: 'operator', name: 'alice', token: OPERATOR },
        { role: 'viewer', name: 'val', token: VIEWER },
      ]),
      logger: pino({ level: 'silent' }),
      redisReady: () => true,
      instanceId: 'dashboard-test',
      queuePrefix: 'sas-test',
      now: () => NOW,
      agentPauses: pauses,
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => new Promise((resolve) => server.close(resolve)));

  it("pauses as the signed-in operator (a body's by does not count) and records why", async () => {
    const paused = await call('POST', '/api/agents/payment/pause', OPERATOR, { by: 'mallory', reason: 'PSP maintenance' });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ changed: true, agent: { agent: 'payment', paused: true, by: 'operator:alice', reason: 'PSP maintenance', since: NOW.toISOString() } });
    expect((await pauses.store.get('payment'))?.history).toEqual([{ action: 'pause', by: 'operator:alice', reason: 'PSP maintenance', at: NOW }]);
    // A repeat changes nothing and says so.
    expect((await call('POST', '/api/agents/payment/pause', OPERATOR, { reason: 'again' })).body).toMatchObject({ changed: false, message: expect.stringContaining('already paused') });
  });

  it('lets a viewer list the agents but answers 403 to a pause or resume, changing nothing', async () => {
    pauses.held.set('payment', 3);
    const listed = await call('GET', '/api/agents', VIEWER);
    expect(listed.status).toBe(200);
    expect((listed.body['agents'] as AgentView[]).map((a) => [a.agent, a.paused, a.held])).toEqual([['inventory', false, 0], ['payment', false, 3], ['shipping', false, 0]]);
    for (const action of ['pause', 'resume']) {
      const refused = await call('POST', `/api/agents/payment/${action}`, VIEWER, { reason: 'x' });
      expect(refused.status).toBe(403);
      expect(refused.body['error']).toContain('needs a token with the operator role');
    }
    expect(await pauses.store.list()).toEqual([]);
  });

  it('refuses a bad agent name and a bad body with 400', async () => {
    expect((await call('POST', '/api/agents/pay%20ment/pause', OPERATOR, { reason: 'x' })).status).toBe(400);
    expect(await call('POST', '/api/agents/payment/pause', OPERATOR, { reason: 'x', extra: 1 })).toMatchObject({ status: 400, body: { error: expect.stringContaining("unknown body field") } });
  });
});
