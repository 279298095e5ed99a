import { AuditEntry } from '@sas/contracts';
import { cliAuditEntry } from './cli-audit';

describe('the audit entry of a direct-path write', () => {
  const at = new Date('2026-01-02T03:04:05.000Z');

  it('names the cli principal, address local and route cli sas <command>, and expires after the retention', () => {
    const entry = cliAuditEntry({ action: 'process.cancel', principal: 'cli:alice@ops-box', command: 'cancel', target: 'process p1', orderId: 'o-1', outcome: 'ok', exitCode: 0, detail: 'customer withdrew' }, at, 60_000);
    expect(entry).toEqual({
      at,
      action: 'process.cancel',
      principal: 'cli:alice@ops-box',
      address: 'local',
      route: 'cli sas cancel',
      target: 'process p1',
      orderId: 'o-1',
      outcome: 'ok',
      status: 0,
      detail: 'customer withdrew',
      expiresAt: new Date('2026-01-02T03:05:05.000Z'),
    });
    expect(AuditEntry.parse(entry)).toEqual(entry);
  });

  it('keeps a long reason inside the entry bounds and leaves absent fields out', () => {
    const entry = cliAuditEntry({ action: 'agent.pause', principal: 'cli:a@b', command: 'pause', outcome: 'failed', exitCode: 1, detail: 'x'.repeat(600) }, at);
    expect(entry.detail).toHaveLength(500);
    expect(Object.keys(entry)).not.toContain('orderId');
    expect(AuditEntry.safeParse(entry).success).toBe(true);
    expect(entry.expiresAt.getTime() - at.getTime()).toBe(90 * 24 * 60 * 60 * 1000);
  });
});
