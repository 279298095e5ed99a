import { Counter, type Registry } from 'prom-client';

/** One labelled total as a component counts it. */
export interface ScrapedSample<L extends string> {
  labels: Partial<Record<L, string>>;
  value: number;
}

/** Options of {@link scrapedCounter}. */
export interface ScrapedCounterOptions<L extends string> {
  registry: Registry;
  /** `sas_..._total`. */
  name: string;
  help: string;
  labelNames?: readonly L[];
  /** The component's totals now, read at every scrape: one number, or one per label set. */
  read: () => number | readonly ScrapedSample<L>[];
}

/**
 * A counter whose value is read from a component's own counters at scrape time (the Scheduler's,
 * the Supervisor's, the JobRunner's `metrics()`), so the component needs no metrics dependency.
 * The totals only grow while the process lives, as a Prometheus counter must.
 */
export function scrapedCounter<L extends string = string>(options: ScrapedCounterOptions<L>): Counter<L> {
  const { read } = options;
  return new Counter<L>({
    name: options.name,
    help: options.help,
    labelNames: options.labelNames ?? [],
    registers: [options.registry],
    collect() {
      this.reset();
      const now = read();
      if (typeof now === 'number') this.inc(now);
      else for (const sample of now) this.inc(sample.labels, sample.value);
    },
  });
}
