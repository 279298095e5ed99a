import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './workspace-facts';

/** A metric a service registers, and where. */
export interface ExposedMetric {
  name: string;
  histogram: boolean;
  file: string;
}

/**
 * The `sas_*` metrics the services register, read from the code: every `'sas_…'` literal in the
 * non-test sources of packages/* and services/* that build metrics (prom-client's Counter, Gauge,
 * Histogram, runtime's `scrapedCounter`, or a helper around them), with whether it is a Histogram.
 */
export function exposedMetrics(): ExposedMetric[] {
  const found = new Map<string, ExposedMetric>();
  for (const top of ['packages', 'services']) {
    for (const dir of readdirSync(join(ROOT, top))) {
      const src = join(ROOT, top, dir, 'src');
      for (const file of sourceFiles(src)) {
        const text = readFileSync(file, 'utf8');
        // Only files that build metrics: a 'sas_…' literal elsewhere (a cookie name) is no metric.
        if (!/\b(?:Counter|Gauge|Histogram|Summary|scrapedCounter)\b/.test(text)) continue;
        for (const m of text.matchAll(/'(sas_[a-z0-9_]+)'/g)) {
          const name = m[1] ?? '';
          const histogram = new RegExp(`new Histogram[^;]*?name:\\s*'${name}'`, 's').test(text);
          found.set(name, { name, histogram, file: relative(ROOT, file) });
        }
      }
    }
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** Series names a Prometheus query may read: each metric, plus `_bucket`, `_sum` and `_count` of a histogram. */
export function exposedSeriesNames(): Set<string> {
  return new Set(exposedMetrics().flatMap((m) => (m.histogram ? [m.name, `${m.name}_bucket`, `${m.name}_sum`, `${m.name}_count`] : [m.name])));
}

function sourceFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const path = join(dir, e);
    if (statSync(path).isDirectory()) return e === 'test-support' ? [] : sourceFiles(path);
    return e.endsWith('.ts') && !e.endsWith('.test.ts') && !e.endsWith('.d.ts') ? [path] : [];
  });
}
