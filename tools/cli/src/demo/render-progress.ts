import { FINAL_STATES, type OrderView } from './order-view';

/** One progress line: `[####------] 23/50 done · Processed 21 · Compensated 2 · in flight 27 · 4.1 s`. */
export function renderProgress(views: readonly OrderView[], total: number, elapsedMs: number, statusEvents: number): string {
  const counts = new Map<string, number>();
  for (const v of views) counts.set(v.state, (counts.get(v.state) ?? 0) + 1);
  const done = views.filter((v) => FINAL_STATES.includes(v.state)).length;
  const width = 20;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  const parts = [...counts.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => `${s} ${n}`);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} done · ${parts.join(' · ') || 'waiting'} · ${statusEvents} status events · ${(elapsedMs / 1000).toFixed(1)} s`;
}
