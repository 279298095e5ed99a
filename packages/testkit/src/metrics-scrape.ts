import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** One series of a metric family: its labels and its value (a histogram's: its count and sum). */
export interface MetricSeries {
  labels: Record<string, string>;
  value: number;
  /** Histograms only: observations per upper bound (`le`), cumulative as exposed. */
  buckets?: Record<string, number>;
  /** Histograms only. */
  sum?: number;
}

/** One metric family as exposed: `# HELP`, `# TYPE` and its series. */
export interface MetricFamily {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  series: MetricSeries[];
}

/**
 * A `/metrics` page parsed with `parse-prometheus-text-format`, which checks every line's syntax.
 * Histograms are read from their `_bucket`/`_sum`/`_count` samples parsed as untyped families:
 * the library keeps only unlabelled histogram series when it groups them.
 */
export class MetricsScrape {
  readonly families: ReadonlyMap<string, MetricFamily>;

  constructor(readonly text: string) {
    const histograms = new Set<string>();
    const families = new Map<string, MetricFamily>();
    for (const raw of parsePrometheusTextFormat(text)) {
      const type = raw.type.toLowerCase() as MetricFamily['type'];
      if (type === 'histogram') histograms.add(raw.name);
      const series = type === 'histogram' ? [] : raw.metrics.map((m) => ({ labels: m.labels ?? {}, value: Number(m.value) }));
      families.set(raw.name, { name: raw.name, help: raw.help, type, series });
    }
    if (histograms.size > 0) {
      const untyped = text.replace(/^# TYPE (\S+) histogram$/gm, (line, name: string) => (histograms.has(name) ? `# TYPE ${name} untyped` : line));
      // Each label set's samples come as a block, so one suffix appears as several families: join them.
      const parts = new Map<string, RawSamples>();
      for (const f of parsePrometheusTextFormat(untyped)) parts.set(f.name, [...(parts.get(f.name) ?? []), ...f.metrics]);
      for (const name of histograms) families.get(name)!.series = histogramSeries(parts.get(`${name}_bucket`) ?? [], parts.get(`${name}_sum`) ?? [], parts.get(`${name}_count`) ?? []);
    }
    this.families = families;
  }

  /** The family, or an error listing what the page has. */
  family(name: string): MetricFamily {
    const family = this.families.get(name);
    if (!family) throw new Error(`/metrics has no '${name}'; it has: ${[...this.families.keys()].filter((n) => n.startsWith('sas_')).join(', ')}`);
    return family;
  }

  /** Series of the family whose labels include all of `labels`. */
  series(name: string, labels: Record<string, string> = {}): MetricSeries[] {
    return this.family(name).series.filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  }

  /** Sum of the values (a histogram's: of its counts) of the series matching `labels`; 0 when none does. */
  total(name: string, labels: Record<string, string> = {}): number {
    return this.series(name, labels).reduce((sum, s) => sum + s.value, 0);
  }
}

type RawSamples = ReturnType<typeof parsePrometheusTextFormat>[number]['metrics'];

function histogramSeries(buckets: RawSamples, sums: RawSamples, counts: RawSamples): MetricSeries[] {
  const key = (labels: Record<string, string>): string => JSON.stringify(Object.entries(labels).filter(([k]) => k !== 'le').sort());
  const byKey = new Map<string, MetricSeries>();
  for (const c of counts) {
    const labels = c.labels ?? {};
    byKey.set(key(labels), { labels, value: Number(c.value), buckets: {}, sum: 0 });
  }
  for (const s of sums) {
    const series = byKey.get(key(s.labels ?? {}));
    if (series) series.sum = Number(s.value);
  }
  for (const b of buckets) {
    const series = byKey.get(key(b.labels ?? {}));
    const le = b.labels?.['le'];
    if (series?.buckets && le !== undefined) series.buckets[le] = Number(b.value);
  }
  return [...byKey.values()];
}

/** GETs a `/metrics` URL and parses it; rejects on a non-200 answer or a malformed page. */
export async function scrapeMetrics(url: string): Promise<MetricsScrape> {
  const res = await fetch(url);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${text}`);
  return new MetricsScrape(text);
}
