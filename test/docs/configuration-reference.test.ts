import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '@sas/runtime';
import { DashboardConfig } from '@sas/dashboard';
import { HttpAgentConfig } from '@sas/http-agent';
import { RemoteSimConfig } from '@sas/remote-sim';
import { SchedulerConfig } from '@sas/scheduler';
import { SubmissionConfig } from '@sas/submission';
import { SupervisorConfig } from '@sas/supervisor';
import { declaredEnv, runnableServices } from '../static/workspace-facts';

/**
 * docs/reference/configuration.md against the services' own config schemas: every variable a
 * service declares is listed, every variable listed is declared, and each literal default in the
 * tables is the default the schema applies.
 */

const ROOT = join(__dirname, '..', '..');
const page = readFileSync(join(ROOT, 'docs/reference/configuration.md'), 'utf8');

/** Each `## section` of the page with its table rows: names and the default cell. */
function sections(): Map<string, Array<{ names: string[]; defaultCell: string }>> {
  const out = new Map<string, Array<{ names: string[]; defaultCell: string }>>();
  let current = '';
  for (const line of page.split('\n')) {
    const heading = /^## (.*)$/.exec(line);
    if (heading) current = heading[1] ?? '';
    const row = /^\| ((?:`[A-Z][A-Z0-9_]*`(?:, )?)+) \| ([^|]*) \|/.exec(line);
    if (!row) continue;
    const names = [...(row[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1] ?? '');
    out.set(current, [...(out.get(current) ?? []), { names, defaultCell: (row[2] ?? '').trim() }]);
  }
  return out;
}

/** The service config each section documents, loaded with only what the schema requires. */
const SCHEMAS: Record<string, () => Record<string, unknown>> = {
  'Every service': () => loadConfig(SubmissionConfig, {}),
  Submission: () => loadConfig(SubmissionConfig, {}),
  Scheduler: () => loadConfig(SchedulerConfig, {}),
  Supervisor: () => loadConfig(SupervisorConfig, {}),
  'HTTP agent': () => loadConfig(HttpAgentConfig, { AGENT: 'payment' }),
  Dashboard: () => loadConfig(DashboardConfig, { DASHBOARD_TOKENS: 'operator:9f3c2a7e41b8d05c6e1f7a2b93d4c8e5' }),
  'remote-sim': () => loadConfig(RemoteSimConfig, {}),
};

/** The literal defaults of a cell (`5, 100, 2000`, `` `info` ``, `604800000 (7 days)`), or null when it states none. */
function literalDefaults(cell: string, count: number): string[] | null {
  const values = cell.replace(/\s*\([^)]*\)\s*$/, '').split(/,\s*/).map((v) => v.replace(/`/g, '').trim());
  if (values.length !== count || values.some((v) => v === '' || v === '–' || /[<>×=]|required|none/.test(v))) return null;
  return values;
}

describe('docs/reference/configuration.md', () => {
  const documented = new Set([...sections().values()].flat().flatMap((r) => r.names));

  it('lists every variable a service declares, and none that no service declares', () => {
    const declared = new Set(runnableServices().flatMap((s) => [...declaredEnv(s)]));
    expect([...declared].filter((v) => !documented.has(v)).sort()).toEqual([]);
    expect([...documented].filter((v) => !declared.has(v)).sort()).toEqual([]);
  });

  it('gives each variable the default its service’s schema applies', () => {
    const wrong: string[] = [];
    for (const [section, rows] of sections()) {
      const load = SCHEMAS[section];
      if (!load) continue;
      const config = load();
      for (const { names, defaultCell } of rows) {
        const literal = literalDefaults(defaultCell, names.length);
        if (literal === null) continue;
        names.forEach((name, i) => {
          const actual = config[name];
          const shown = Array.isArray(actual) ? actual.join(',') : String(actual);
          if (shown !== literal[i]) wrong.push(`${section}: ${name} is documented as ${literal[i]}, the schema gives ${shown}`);
        });
      }
    }
    expect(wrong).toEqual([]);
  });

  it('reads the tables it checks', () => {
    expect([...sections().keys()]).toEqual(expect.arrayContaining(Object.keys(SCHEMAS)));
    expect(literalDefaults('5, 100, 2000, 2, 0.5', 5)).toEqual(['5', '100', '2000', '2', '0.5']);
    expect(literalDefaults('604800000 (7 days)', 1)).toEqual(['604800000']);
    expect(literalDefaults('3 × sweep interval', 1)).toBeNull();
  });
});
