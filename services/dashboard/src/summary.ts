import { ProcessState, type BreakerStateDocument } from '@sas/contracts';
import type { QueueCounts } from './queue-inspector';

/** What `GET /api/summary` answers: one look at the whole system. */
export interface Summary {
  processes: {
    total: number;
    /** Every state, zero included, in lifecycle order, so a client need not know the states. */
    byState: Record<ProcessState, number>;
    /** Workflows in name order. */
    byWorkflow: Record<string, number>;
  };
  queues: Record<string, QueueCounts>;
  deadLetters: number;
  breakers: { agent: string; instanceId: string; state: BreakerStateDocument['state']; retryAt: string | null; updatedAt: string }[];
  /** When the summary was read. */
  at: string;
}

/** The raw readings {@link shapeSummary} turns into a {@link Summary}. */
export interface SummaryReadings {
  byState: Record<string, number>;
  byWorkflow: Record<string, number>;
  queues: Record<string, QueueCounts>;
  deadLetters: number;
  breakers: readonly BreakerStateDocument[];
  at: Date;
}

/**
 * Shapes the store's and the queues' raw counts into the summary: every state present (zero when
 * no process is in it), workflows sorted, breakers sorted by agent and instance. Counts for a state
 * the contracts do not know (a newer service wrote it) are kept in the total but not invented as a state.
 */
export function shapeSummary(readings: SummaryReadings): Summary {
  const byState = Object.fromEntries(ProcessState.options.map((s) => [s, readings.byState[s] ?? 0])) as Record<ProcessState, number>;
  const byWorkflow = Object.fromEntries(Object.entries(readings.byWorkflow).sort(([a], [b]) => a.localeCompare(b)));
  const total = Object.values(readings.byState).reduce((sum, n) => sum + n, 0);
  const breakers = [...readings.breakers]
    .sort((a, b) => a.agent.localeCompare(b.agent) || a.instanceId.localeCompare(b.instanceId))
    .map((b) => ({
      agent: b.agent,
      instanceId: b.instanceId,
      state: b.state,
      retryAt: b.retryAt ? b.retryAt.toISOString() : null,
      updatedAt: b.updatedAt.toISOString(),
    }));
  return {
    processes: { total, byState, byWorkflow },
    queues: readings.queues,
    deadLetters: readings.deadLetters,
    breakers,
    at: readings.at.toISOString(),
  };
}
