import type { BulkRunnerCounters } from '@sas/bulk';
import { scrapedCounter } from '@sas/runtime';
import type { Registry } from 'prom-client';

const COMMANDS = ['resubmit', 'cancel'] as const;
const OUTCOMES = ['done', 'refused', 'failed'] as const;

/** The bulk runner's series, read from `BulkRunner.metrics()` at every scrape. */
export function registerBulkRunnerCounters(registry: Registry, runner: { metrics(): BulkRunnerCounters }): void {
  scrapedCounter({
    registry,
    name: 'sas_bulk_operations_finished_total',
    help: 'Bulk operations this scheduler finished, by command',
    labelNames: ['command'],
    read: () => {
      const m = runner.metrics();
      return COMMANDS.map((command) => ({ labels: { command }, value: m.finished[command] }));
    },
  });
  scrapedCounter({
    registry,
    name: 'sas_bulk_processes_total',
    help: 'Processes bulk operations acted on in this scheduler, by command and outcome: done (applied), refused (the process no longer allowed it), failed (could not be applied)',
    labelNames: ['command', 'outcome'],
    read: () => {
      const m = runner.metrics();
      return COMMANDS.flatMap((command) => OUTCOMES.map((outcome) => ({ labels: { command, outcome }, value: m.processes[command][outcome] })));
    },
  });
}
