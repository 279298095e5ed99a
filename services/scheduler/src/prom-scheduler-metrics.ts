import { scrapedCounter } from '@sas/runtime';
import { Histogram, type Registry } from 'prom-client';
import type { SchedulerMetrics } from './scheduler-metrics';
import type { StepObservation } from './step-observation';

/** Seconds: a remote call answers in milliseconds, a step retried or parked may take minutes. */
const STEP_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** The scheduler's counters, as its `metrics()` keeps them. */
interface SchedulerCounters {
  metrics(): Record<string, number>;
}

/**
 * The scheduler's series on a registry: the step duration histogram fed by {@link SchedulerMetrics},
 * and its claim and reply counters read from `Scheduler.metrics()` at every scrape.
 */
export class PromSchedulerMetrics implements SchedulerMetrics {
  private readonly stepDuration: Histogram<'workflow' | 'step' | 'agent' | 'mode' | 'outcome'>;

  constructor(private readonly registry: Registry) {
    this.stepDuration = new Histogram({
      name: 'sas_step_duration_seconds',
      help: "Time from a step's first dispatch (in its mode) to the scheduler applying its agent's reply, by workflow, step, agent, mode and reply outcome",
      labelNames: ['workflow', 'step', 'agent', 'mode', 'outcome'],
      buckets: STEP_BUCKETS,
      registers: [registry],
    });
  }

  stepReplied(o: StepObservation): void {
    this.stepDuration.observe({ workflow: o.workflow, step: o.step, agent: o.agent, mode: o.mode, outcome: o.outcome }, o.seconds);
  }

  /** Registers the counters the scheduler keeps itself; call once, with the running scheduler. */
  countersOf(scheduler: SchedulerCounters): void {
    const counter = (name: string, help: string, key: string): void => {
      scrapedCounter({ registry: this.registry, name, help, read: () => scheduler.metrics()[key] ?? 0 });
    };
    counter('sas_scheduler_claims_total', 'Pending processes this scheduler claimed and dispatched', 'claimed');
    counter('sas_scheduler_handed_over_claims_total', 'Of those claims, processes handed over by the submission role of the same process (no wake-up job)', 'handedOver');
    counter('sas_scheduler_claim_errors_total', 'Claims that failed on a store error (retried next round)', 'claimErrors');
    counter('sas_scheduler_replies_total', 'Agent replies this scheduler received', 'replies');
    counter('sas_scheduler_stale_replies_total', 'Agent replies ignored as stale (an older attempt, a finished step)', 'staleReplies');
    counter('sas_scheduler_quarantined_total', 'Processes this build cannot handle, given up to an operator in Error', 'quarantined');
    counter('sas_scheduler_skipped_rounds_total', 'Claim rounds skipped because the bus was not connected', 'skippedRounds');
  }
}
