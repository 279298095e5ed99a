import type { OrderView } from './order-view';

const MARK: Record<string, string> = {
  Completed: 'ok',
  Compensated: 'undone',
  Failed: 'FAILED',
  Running: 'running',
  Compensating: 'undoing',
  NotStarted: '-',
};

/** A plain-text table: one row per order, then totals by final state. */
export function renderSummary(views: readonly OrderView[]): string {
  const stepNames = views[0]?.steps.map((s) => s.name) ?? [];
  const header = ['order', 'state', ...stepNames, 'recoveries', 'ms'];
  const rows = [...views]
    .sort((a, b) => a.orderId.localeCompare(b.orderId))
    .map((v) => [
      v.orderId,
      v.state,
      ...v.steps.map((s) => `${MARK[s.state] ?? s.state}${s.dispatches > 1 ? ` x${s.dispatches}` : ''}`),
      String(v.failureCount),
      String(v.updatedAt.getTime() - v.createdAt.getTime()),
    ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  const totals = new Map<string, number>();
  for (const v of views) totals.set(v.state, (totals.get(v.state) ?? 0) + 1);
  return [
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    '',
    `Totals: ${[...totals.entries()].map(([s, n]) => `${s} ${n}`).join(', ')} (of ${views.length})`,
  ].join('\n');
}
