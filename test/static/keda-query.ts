/**
 * The PromQL of the KEDA ScaledObjects in deploy/k8s/keda, read and evaluated here so that the
 * static checks can say which queue and states it counts, and the queue-depth test can run it on a
 * real scrape. Only the one shape the ScaledObjects use is understood:
 *
 *   sum(<max|sum> by (<labels>) (<metric>{<label><op>"<value>", ...}))
 *
 * Anything else is refused with the shape expected, so a query edited into something this cannot
 * read fails its checks instead of passing them unread.
 */

/** One label matcher; `=~` and `!~` are regular expressions anchored at both ends, as in PromQL. */
export interface LabelMatcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

export interface QueueDepthQuery {
  /** How series that share the `by` labels are combined (over dashboard replicas). */
  inner: 'max' | 'sum';
  by: string[];
  metric: string;
  matchers: LabelMatcher[];
}

/** One sample of a scrape: its labels and value. */
export interface Sample {
  labels: Record<string, string>;
  value: number;
}

const SHAPE = /^\s*sum\s*\(\s*(max|sum)\s+by\s*\(([\w\s,]*)\)\s*\(\s*([A-Za-z_:][\w:]*)\s*\{(.*)\}\s*\)\s*\)\s*$/s;
const MATCHER = /\s*([A-Za-z_]\w*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;

export function parseQueueDepthQuery(query: string): QueueDepthQuery {
  const shape = SHAPE.exec(query);
  if (!shape) throw new Error(`query '${query}' is not of the form sum(max by (state) (metric{label="value", ...}))`);
  const [, inner, by, metric, body] = shape;
  const matchers: LabelMatcher[] = [];
  MATCHER.lastIndex = 0;
  const text = body ?? '';
  while (MATCHER.lastIndex < text.length) {
    const start = MATCHER.lastIndex;
    const m = MATCHER.exec(text);
    if (!m) throw new Error(`query '${query}': cannot read the label matchers from '${text.slice(start)}'`);
    matchers.push({ label: m[1] ?? '', op: m[2] as LabelMatcher['op'], value: (m[3] ?? '').replace(/\\(.)/g, '$1') });
  }
  return {
    inner: inner as QueueDepthQuery['inner'],
    by: (by ?? '').split(',').map((l) => l.trim()).filter((l) => l !== ''),
    metric: metric ?? '',
    matchers,
  };
}

/** Whether a label value (absent: the empty string, as in PromQL) passes the matcher. */
export function labelMatches(matcher: LabelMatcher, value: string | undefined): boolean {
  const v = value ?? '';
  switch (matcher.op) {
    case '=':
      return v === matcher.value;
    case '!=':
      return v !== matcher.value;
    case '=~':
      return new RegExp(`^(?:${matcher.value})$`).test(v);
    case '!~':
      return !new RegExp(`^(?:${matcher.value})$`).test(v);
  }
}

/** The query's value over the samples of one metric, or undefined when no series matches (an empty answer). */
export function evaluateQueueDepthQuery(query: QueueDepthQuery, metric: string, samples: readonly Sample[]): number | undefined {
  if (metric !== query.metric) return undefined;
  const selected = samples.filter((s) => query.matchers.every((m) => labelMatches(m, s.labels[m.label])));
  if (selected.length === 0) return undefined;
  const groups = new Map<string, number>();
  for (const s of selected) {
    const key = JSON.stringify(query.by.map((l) => s.labels[l] ?? ''));
    const before = groups.get(key);
    groups.set(key, before === undefined ? s.value : query.inner === 'max' ? Math.max(before, s.value) : before + s.value);
  }
  return [...groups.values()].reduce((sum, v) => sum + v, 0);
}
