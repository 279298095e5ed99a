import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exposedSeriesNames } from './exposed-metrics';
import { promtool } from './promtool';
import { metricNamesIn } from './promql-names';
import { readText } from './workspace-facts';

/**
 * deploy/grafana/sas.json: a dashboard Grafana imports as it is, whose every query is valid PromQL
 * (parsed by promtool) over metrics the services really register.
 */

interface Target { refId: string; expr: string; datasource?: { uid?: string } }
interface Panel { id: number; type: string; title: string; gridPos: { x: number; y: number; w: number; h: number }; datasource?: { uid?: string }; targets?: Target[] }
interface Dashboard { uid: string; title: string; panels: Panel[]; templating: { list: Array<{ name: string; type: string; query?: unknown }> } }

const dashboard = JSON.parse(readText('deploy/grafana/sas.json')) as Dashboard;
const panels = dashboard.panels.filter((p) => p.type !== 'row');
const queries = panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, ref: t.refId, expr: t.expr })));

/** A query as Prometheus sees it once Grafana has filled its variables. */
function asPrometheusSees(expr: string): string {
  return expr.replace(/\$__rate_interval|\$__interval|\$__range/g, '5m').replace(/\$workflow/g, '.*');
}

describe('the Grafana dashboard in deploy/grafana', () => {
  it('is one dashboard with a stable uid, a Prometheus data source variable and panels that each query it', () => {
    expect(dashboard.uid).toBe('sas-overview');
    expect(dashboard.templating.list.find((v) => v.name === 'datasource')).toEqual(expect.objectContaining({ type: 'datasource', query: 'prometheus' }));
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
    for (const p of panels) {
      expect({ panel: p.title, datasource: p.datasource?.uid, targets: (p.targets ?? []).length > 0 }).toEqual({ panel: p.title, datasource: '${datasource}', targets: true });
      for (const t of p.targets ?? []) expect({ panel: p.title, datasource: t.datasource?.uid }).toEqual({ panel: p.title, datasource: '${datasource}' });
    }
  });

  it('lays panels out on Grafana’s 24 columns without overlapping', () => {
    const cells = new Set<string>();
    const overlaps: string[] = [];
    for (const p of dashboard.panels) {
      const { x, y, w, h } = p.gridPos;
      expect({ panel: p.title, fits: x >= 0 && w > 0 && x + w <= 24 && h > 0 }).toEqual({ panel: p.title, fits: true });
      for (let i = x; i < x + w; i++) for (let j = y; j < y + h; j++) {
        if (cells.has(`${i},${j}`)) overlaps.push(p.title);
        cells.add(`${i},${j}`);
      }
    }
    expect([...new Set(overlaps)]).toEqual([]);
  });

  it('reads only metrics the services register', () => {
    const exposed = exposedSeriesNames();
    const variables = dashboard.templating.list.flatMap((v) => {
      const q = typeof v.query === 'object' && v.query !== null ? (v.query as { query?: string }).query : undefined;
      const m = q ? /^label_values\((\w+)\s*,/.exec(q) : null;
      return m?.[1] ? [{ panel: `variable ${v.name}`, ref: '-', expr: m[1] }] : [];
    });
    const unknown = [...queries, ...variables].flatMap((q) => metricNamesIn(q.expr).filter((n) => !exposed.has(n)).map((n) => `${q.panel} (${q.ref}): ${n}`));
    expect(unknown).toEqual([]);
  });

  it('shows orders by outcome, step latency, queue depths, breakers, parked and held work', () => {
    const read = (metric: string, also = ''): boolean => queries.some((q) => metricNamesIn(q.expr).includes(metric) && q.expr.includes(also));
    expect({
      outcomes: read('sas_status_events_sent_total', 'Processed|Compensated|Canceled'),
      stepLatency: read('sas_step_duration_seconds_bucket', 'histogram_quantile'),
      queueDepths: read('sas_queue_jobs', 'waiting'),
      breakers: read('sas_agent_breaker_state'),
      parked: read('sas_agent_requests_total', 'outcome="parked"'),
      held: read('sas_agent_held_processes'),
      waitingForOperator: read('sas_processes', 'state="Error"'),
    }).toEqual({ outcomes: true, stepLatency: true, queueDepths: true, breakers: true, parked: true, held: true, waitingForOperator: true });
  });

  it('holds only valid PromQL: promtool parses every query', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sas-grafana-'));
    try {
      const rules = queries.map((q, i) => `      - record: grafana:query_${i}\n        expr: ${JSON.stringify(asPrometheusSees(q.expr))}\n`).join('');
      writeFileSync(join(dir, 'queries.yml'), `groups:\n  - name: grafana\n    rules:\n${rules}`);
      const run = promtool(['check', 'rules', join(dir, 'queries.yml')]);
      expect({ status: run.status, output: run.output }).toEqual({ status: 0, output: expect.stringContaining(`SUCCESS: ${queries.length} rules found`) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
