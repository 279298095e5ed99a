import { scrapedCounter } from '@sas/runtime';
import { Gauge, type Registry } from 'prom-client';

/** The job runner's counters, as its `metrics()` keeps them. */
interface JobRunnerCounters {
  metrics(): Record<string, number>;
}

/** Outcomes a firing ends with, as `JobRunner.metrics()` counts them. */
const FIRING_OUTCOMES = ['fired', 'failed', 'retrying', 'lost', 'skipped'] as const;

/**
 * The persistent job runner's series, read from `JobRunner.metrics()` at every scrape: firings by
 * outcome, late firings (fired or failed past their tolerance) and whether this instance leads.
 */
export function registerJobRunnerCounters(registry: Registry, runner: JobRunnerCounters): void {
  scrapedCounter({
    registry,
    name: 'sas_job_firings_total',
    help: 'Job firings by outcome: fired (trigger sent), failed (gave up), retrying (an attempt failed, tried again later), lost (another runner took it), skipped (misfired occurrences passed over by misfirePolicy skip)',
    labelNames: ['outcome'],
    read: () => {
      const m = runner.metrics();
      return FIRING_OUTCOMES.map((outcome) => ({ labels: { outcome }, value: m[outcome] ?? 0 }));
    },
  });
  scrapedCounter({
    registry,
    name: 'sas_job_late_firings_total',
    help: 'Job firings (fired or failed) that started later than the tolerance after their fire time, missed occurrences included',
    read: () => runner.metrics()['late'] ?? 0,
  });
  new Gauge({
    name: 'sas_job_runner_leader',
    help: '1 while this scheduler holds the job runner lease and fires jobs, else 0',
    registers: [registry],
    collect() {
      this.set(runner.metrics()['jobLeader'] ?? 0);
    },
  });
}
