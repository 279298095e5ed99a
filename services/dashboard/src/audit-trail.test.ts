import { createHash } from 'node:crypto';
import { LOCAL_ALICE, LOCAL_OPERATOR, startLocalDashboard, type LocalDashboard } from './test-support/local-dashboard';

describe('who an accepted operator write is audited under', () => {
  let dashboard: LocalDashboard;
  const post = async (path: string, token: string, body: unknown): Promise<number> =>
    (await fetch(`${dashboard.base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).status;

  beforeEach(async () => {
    dashboard = await startLocalDashboard();
  });
  afterEach(() => dashboard.close());

  it('records a cancel under the signed-in principal, never under the by the body names', async () => {
    expect(await post('/api/processes/A-1/cancel', LOCAL_ALICE, { by: 'operator:ceo', reason: 'customer asked' })).toBe(200);
    const entry = await dashboard.audit.next((e) => e.action === 'process.cancel');
    expect(entry).toMatchObject({ principal: 'operator:alice', role: 'operator', target: 'process p1', orderId: 'A-1', outcome: 'ok', status: 200, detail: 'customer asked' });
    expect(JSON.stringify(dashboard.audit.entries)).not.toContain('operator:ceo');
    expect(dashboard.commands.sent).toEqual([{ command: 'cancel', processId: 'p1', by: 'operator:alice', reason: 'customer asked' }]);
  });

  it('records a resubmit by an unnamed token under the token’s digest name, not the body’s by', async () => {
    expect(await post('/api/processes/p1/resubmit', LOCAL_OPERATOR, { by: 'somebody-else' })).toBe(200);
    const entry = await dashboard.audit.next((e) => e.action === 'process.resubmit');
    expect(entry.principal).toBe(`operator:${createHash('sha256').update(LOCAL_OPERATOR).digest('hex').slice(0, 6)}`);
    expect(JSON.stringify(dashboard.audit.entries)).not.toContain('somebody-else');
  });
});
