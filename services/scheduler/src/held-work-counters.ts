import { scrapedCounter } from '@sas/runtime';
import type { Registry } from 'prom-client';

/** The releaser's counters, as its `metrics()` keeps them. */
interface HeldWorkCounters {
  metrics(): Record<string, number>;
}

/** The release of held work, read from `HeldWorkReleaser.metrics()` at every scrape. */
export function registerHeldWorkCounters(registry: Registry, releaser: HeldWorkCounters): void {
  scrapedCounter({
    registry,
    name: 'sas_scheduler_held_released_total',
    help: 'Processes held for a paused agent that this scheduler claimed and dispatched after the agent was resumed',
    read: () => releaser.metrics()['released'] ?? 0,
  });
  scrapedCounter({
    registry,
    name: 'sas_scheduler_held_release_errors_total',
    help: 'Releases of held processes that failed on a store error (a later round retries them)',
    read: () => releaser.metrics()['releaseErrors'] ?? 0,
  });
}
