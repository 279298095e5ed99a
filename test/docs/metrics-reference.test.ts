import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exposedMetrics } from '../static/exposed-metrics';

/** The metrics table of docs/operating.md lists exactly the metrics the services register. */

const ROOT = join(__dirname, '..', '..');
const rows = [...readFileSync(join(ROOT, 'docs/operating.md'), 'utf8').matchAll(/^\| `(sas_[a-z0-9_]+)` \| (\w+) \|/gm)].map((m) => ({ name: m[1] ?? '', type: m[2] ?? '' }));

describe('the metrics table of docs/operating.md', () => {
  it('lists every metric the services register, once, and no other', () => {
    const documented = rows.map((r) => r.name);
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual(exposedMetrics().map((m) => m.name));
  });

  it('calls a histogram a histogram', () => {
    const histograms = new Set(exposedMetrics().filter((m) => m.histogram).map((m) => m.name));
    expect(rows.filter((r) => (r.type === 'histogram') !== histograms.has(r.name))).toEqual([]);
  });
});
