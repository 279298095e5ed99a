import type { AgentRegistration } from '@sas/contracts';

/**
 * The lines `sas agents` prints under an agent for its live instances: one per instance with its
 * version, age and last heartbeat, then what it serves (compensations marked as declared).
 * `  no live instance registered` when it has none.
 */
export function describeLiveInstances(agent: string, live: readonly AgentRegistration[], now: number): string[] {
  const mine = live.filter((r) => r.agent === agent);
  if (mine.length === 0) return ['  no live instance registered'];
  return mine.map((r) => {
    const ops = r.operations.map((o) => (r.compensations.includes(o) ? `${o} (compensation)` : o));
    if (r.servesOtherOperations) ops.push('* (any other operation)');
    const seen = Math.max(0, Math.round((now - r.lastSeen.getTime()) / 1000));
    return `  instance ${r.instanceId} ${r.version === null ? 'version unknown' : `v${r.version}`}, up since ${r.startedAt.toISOString()}, seen ${seen}s ago: ${ops.join(', ') || 'no operations'}`;
  });
}
