import { operationsOf, simulatedServiceNames, type RemoteServiceName } from './remote-operations';

/**
 * How one call to a simulated service ended. `conflict` (an idempotency key reused for another
 * operation or order) is kept apart from `permanent` (an injected 422) so a client bug is never
 * mistaken for a fault the test asked for; `tombstoned` is a forward call refused because its undo
 * came first (a 409 that is the protocol working, not a bug).
 */
export type CallOutcome =
  | 'ok'
  | 'replayed'
  | 'error503'
  | 'outage'
  | 'lost'
  | 'hang'
  | 'permanent'
  | 'conflict'
  | 'tombstoned'
  | 'bad-request';

/** Every outcome, in a stable order, so each counter is present (zero) before its first call. */
export const callOutcomes: readonly CallOutcome[] = [
  'ok',
  'replayed',
  'error503',
  'outage',
  'lost',
  'hang',
  'permanent',
  'conflict',
  'tombstoned',
  'bad-request',
];

/** Count per outcome. */
export type OutcomeCounts = Record<CallOutcome, number>;

/** Counters of one service: per operation and outcome, per outcome, and in total. */
export interface ServiceStats {
  total: number;
  outcomes: OutcomeCounts;
  operations: Record<string, OutcomeCounts>;
}

/** What `GET /stats` returns. */
export interface StatsSnapshot {
  /** Epoch ms when counting started (construction or the last reset). */
  since: number;
  /** Calls received across all services. */
  total: number;
  services: Record<RemoteServiceName, ServiceStats>;
}

/**
 * Counts the calls each simulated service received and how they ended, so a test can prove, for
 * example, that agents backed off during an outage instead of hammering the service.
 */
export class CallStats {
  private counts: StatsSnapshot;

  constructor(now: number) {
    this.counts = emptyStats(now);
  }

  /** Counts one call to a known service and operation. */
  count(service: RemoteServiceName, operation: string, outcome: CallOutcome): void {
    const stats = this.counts.services[service];
    const byOperation = (stats.operations[operation] ??= zeroOutcomes());
    byOperation[outcome] += 1;
    stats.outcomes[outcome] += 1;
    stats.total += 1;
    this.counts.total += 1;
  }

  /** A deep copy, safe to serialize or keep while counting goes on. */
  snapshot(): StatsSnapshot {
    return structuredClone(this.counts);
  }

  /** Starts counting again from zero at `now`. */
  reset(now: number): void {
    this.counts = emptyStats(now);
  }
}

function zeroOutcomes(): OutcomeCounts {
  return Object.fromEntries(callOutcomes.map((o) => [o, 0])) as OutcomeCounts;
}

function emptyServiceStats(service: RemoteServiceName): ServiceStats {
  const operations: Record<string, OutcomeCounts> = {};
  for (const operation of operationsOf(service)) operations[operation] = zeroOutcomes();
  return { total: 0, outcomes: zeroOutcomes(), operations };
}

function emptyStats(now: number): StatsSnapshot {
  const services = Object.fromEntries(simulatedServiceNames.map((s) => [s, emptyServiceStats(s)]));
  return { since: now, total: 0, services: services as Record<RemoteServiceName, ServiceStats> };
}
