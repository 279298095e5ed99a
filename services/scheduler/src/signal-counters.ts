import { SignalOutcome } from '@sas/contracts';
import { scrapedCounter } from '@sas/runtime';
import type { Registry } from 'prom-client';

/** The signal handler's answers, as its `metrics()` counts them. */
interface SignalCounters {
  metrics(): Record<string, number>;
}

/**
 * Signals this scheduler answered, by the outcome its sender was told, read from
 * `SignalHandler.metrics()` at every scrape. The labels are the answers' own outcomes, so a
 * series matches what senders and logs see. A delivery that failed and is retried counts once,
 * when it is answered.
 */
export function registerSignalCounters(registry: Registry, handler: SignalCounters): void {
  scrapedCounter({
    registry,
    name: 'sas_scheduler_signals_total',
    help: 'Signals answered by outcome: consumed (completed the signal step waiting for it), kept (arrived before its step, kept for it), repeat (a signal id the process already had: counted once), refused (process finished or being undone, data too large, too many kept), not-found (no such process), invalid (dead-lettered: unreadable, or kept failing)',
    labelNames: ['outcome'],
    read: () => {
      const m = handler.metrics();
      return SignalOutcome.options.map((outcome) => ({ labels: { outcome }, value: m[outcome] ?? 0 }));
    },
  });
}
