/**
 * The metric names a PromQL expression reads, found by a small tokenizer: strings, label matchers,
 * ranges, `by (...)`-style label lists and Grafana variables are dropped; an identifier followed by
 * `(` must be a known function or aggregation (so a misspelt one is reported, not taken for a
 * metric), keywords are skipped, and every other identifier is a metric name.
 */

const FUNCTIONS = new Set([
  'abs', 'absent', 'avg', 'avg_over_time', 'bottomk', 'ceil', 'changes', 'clamp_max', 'clamp_min', 'count', 'count_over_time',
  'delta', 'deriv', 'floor', 'group', 'histogram_quantile', 'increase', 'irate', 'label_replace', 'last_over_time', 'max',
  'max_over_time', 'min', 'min_over_time', 'quantile', 'rate', 'resets', 'round', 'sort', 'sort_desc', 'stddev', 'sum',
  'sum_over_time', 'time', 'topk', 'vector',
]);
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/** The metric names `expr` reads, in order of first use. Throws on an unknown function. */
export function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ');
  const names: string[] = [];
  for (const m of stripped.matchAll(/(?<![\w.])([A-Za-z_:][\w:]*)(\s*\()?/g)) {
    const [, name = '', call] = m;
    if (KEYWORDS.has(name.toLowerCase())) continue;
    if (call !== undefined) {
      if (!FUNCTIONS.has(name)) throw new Error(`'${name}(' in ${expr} is not a PromQL function this check knows`);
      continue;
    }
    if (names.includes(name)) continue;
    names.push(name);
  }
  return names;
}
