import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exposedMetrics, exposedSeriesNames } from './exposed-metrics';
import { promtool } from './promtool';
import { metricNamesIn } from './promql-names';
import { isYamlMap } from './yaml-document';
import { ROOT, readYaml } from './workspace-facts';

/**
 * deploy/prometheus/sas-rules.yml: valid for Prometheus (promtool check rules), each alert firing
 * when it should and not otherwise (promtool test rules, sas-rules.test.yml), over metrics the
 * services really register.
 */

const RULES = 'deploy/prometheus/sas-rules.yml';
const rules = (() => {
  const doc = readYaml(RULES);
  const groups = isYamlMap(doc) && Array.isArray(doc['groups']) ? doc['groups'] : [];
  return groups.flatMap((g) => (isYamlMap(g) && Array.isArray(g['rules']) ? g['rules'].filter(isYamlMap) : []));
})();

/** Series Prometheus itself makes for every target. */
const PROMETHEUS_OWN = new Set(['up']);

describe('the Prometheus alert rules in deploy/prometheus', () => {
  it('pass promtool check rules', () => {
    const run = promtool(['check', 'rules', RULES], ROOT);
    expect({ status: run.status, output: run.output }).toEqual({ status: 0, output: expect.stringContaining(`SUCCESS: ${rules.length} rules found`) });
  });

  it('fire when they should and stay quiet when they should not (promtool test rules)', () => {
    const run = promtool(['test', 'rules', 'sas-rules.test.yml'], join(ROOT, 'deploy/prometheus'));
    expect({ status: run.status, output: run.output }).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  });

  it('read only metrics the services register', () => {
    const exposed = exposedSeriesNames();
    expect(exposedMetrics().find((m) => m.name === 'sas_step_duration_seconds')?.histogram).toBe(true);
    const unknown = rules.flatMap((r) => metricNamesIn(String(r['expr'])).filter((n) => !exposed.has(n) && !PROMETHEUS_OWN.has(n)).map((n) => `${String(r['alert'])}: ${n}`));
    expect(unknown).toEqual([]);
  });

  it('page on stuck or parked work, growing dead letters, open breakers and a service down, each with a severity and a summary', () => {
    expect(rules.map((r) => r['alert']).sort()).toEqual([
      'SasBreakerOpen',
      'SasDeadLettersGrowing',
      'SasNoSupervisorLeader',
      'SasProcessesWaitingForOperator',
      'SasServiceDown',
      'SasStepsParked',
      'SasWorkHeld',
      'SasWorkStuck',
    ]);
    for (const r of rules) {
      expect({ alert: r['alert'], severity: isYamlMap(r['labels']) ? r['labels']['severity'] : undefined }).toEqual({ alert: r['alert'], severity: expect.stringMatching(/^(critical|warning|info)$/) });
      expect({ alert: r['alert'], summary: isYamlMap(r['annotations']) ? typeof r['annotations']['summary'] : undefined }).toEqual({ alert: r['alert'], summary: 'string' });
    }
  });

  it('finds a misspelt metric or function, and promtool refuses a broken expression', () => {
    const exposed = exposedSeriesNames();
    expect(metricNamesIn('max by (agent) (sas_agent_breaker_stat{agent="x"}) == 2').filter((n) => !exposed.has(n))).toEqual(['sas_agent_breaker_stat']);
    expect(() => metricNamesIn('rates(sas_dead_letters_total[5m])')).toThrow(/'rates\(' .* is not a PromQL function/);
    const dir = mkdtempSync(join(tmpdir(), 'sas-promtool-'));
    try {
      writeFileSync(join(dir, 'bad.yml'), 'groups:\n  - name: x\n    rules:\n      - alert: X\n        expr: sum by (agent (sas_agent_paused)\n');
      expect(promtool(['check', 'rules', join(dir, 'bad.yml')]).status).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
