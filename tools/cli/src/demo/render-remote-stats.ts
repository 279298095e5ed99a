/** remote-sim's `/stats` body, as far as the demo reads it. */
export interface RemoteStats {
  services: Record<string, { total: number; outcomes: Record<string, number> }>;
}

/**
 * One line per remote service: how many calls it received and what happened to them, so the demo
 * shows the faults that the agents absorbed (errors retried, lost replies replayed by key). A service
 * no order called is left out: remote-sim also simulates the trip example's flight and hotel, which
 * the demo's orders never use, and a row of zeros for them only raises the question why.
 */
export function renderRemoteStats(stats: RemoteStats): string {
  return Object.entries(stats.services)
    .filter(([, s]) => s.total > 0)
    .map(([service, s]) => {
      const outcomes = Object.entries(s.outcomes)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ');
      return `  ${service.padEnd(10)} ${String(s.total).padStart(5)} calls: ${outcomes || 'none'}`;
    })
    .join('\n');
}
