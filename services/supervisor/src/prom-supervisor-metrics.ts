import { scrapedCounter } from '@sas/runtime';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { RecoveryAction } from './recovery-action';
import type { SupervisorMetrics } from './supervisor-metrics';

/** The supervisor's counters, as its `metrics()` keeps them. */
interface SupervisorCounters {
  metrics(): Record<string, number>;
}

/**
 * The supervisor's series on a registry: recoveries by workflow and action, fed by
 * {@link SupervisorMetrics}, and its sweep counters read from `Supervisor.metrics()` at every scrape.
 */
export class PromSupervisorMetrics implements SupervisorMetrics {
  private readonly recoveries: Counter<'workflow' | 'action'>;

  constructor(private readonly registry: Registry) {
    this.recoveries = new Counter({
      name: 'sas_supervisor_recoveries_total',
      help: 'Expired processes recovered, by workflow and action: retry (below the failure threshold), or the threshold policy applied: wait, compensate, error',
      labelNames: ['workflow', 'action'],
      registers: [registry],
    });
  }

  recovered(workflow: string, action: RecoveryAction): void {
    this.recoveries.inc({ workflow, action });
  }

  /** Registers the counters the supervisor keeps itself; call once, with the running supervisor. */
  countersOf(supervisor: SupervisorCounters): void {
    const counter = (name: string, help: string, key: string): void => {
      scrapedCounter({ registry: this.registry, name, help, read: () => supervisor.metrics()[key] ?? 0 });
    };
    counter('sas_supervisor_sweeps_total', 'Sweeps this supervisor ran while holding the sweep lease', 'sweeps');
    counter('sas_supervisor_outboxes_delivered_total', 'Outboxes left behind by a crash that a sweep delivered', 'delivered');
    counter('sas_supervisor_quarantined_total', 'Expired processes this build cannot handle, given up to an operator in Error', 'quarantined');
    counter('sas_supervisor_recovery_errors_total', 'Recoveries that failed on a store error (retried next sweep)', 'errors');
    new Gauge({
      name: 'sas_supervisor_leader',
      help: '1 while this supervisor holds the sweep lease, else 0',
      registers: [this.registry],
      collect() {
        this.set(supervisor.metrics()['leader'] ?? 0);
      },
    });
  }
}
