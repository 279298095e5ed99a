import { compareKeyValues } from '../query/key-interval';
import type { DocPredicate } from '../query/query-matcher';
import type { IndexPlan } from '../query/query-planner';
import type { IndexKey } from './index-key';
import type { StoredRecord } from './index-manager';
import type { IndexTree } from './index-tree';

function ties(a: IndexKey, b: IndexKey, positions: readonly number[]): boolean {
  return positions.every((p) => compareKeyValues(a.values[p], b.values[p]) === 0);
}

/**
 * Reads the ranges of an index plan and returns the matching records, each once, in reading
 * order. When the reading order delivers the sort and `want` documents are asked for, it stops
 * at the first entry after the `want`-th match that no longer ties with it on the sorted
 * fields: everything further sorts strictly after, and the ties read so far let the caller put
 * equal keys back in natural order. `onExamined` counts every entry read.
 */
export function readIndex(
  tree: IndexTree,
  plan: IndexPlan,
  lookup: (idKey: string) => StoredRecord | undefined,
  matches: DocPredicate,
  want: number | undefined,
  onExamined: () => void,
): StoredRecord[] {
  const out: StoredRecord[] = [];
  const seen = new Set<string>();
  const canStop = plan.sortKeys > 0 && want !== undefined;
  let last: IndexKey | undefined;
  for (const range of plan.ranges) {
    for (const [key, idKey] of tree.range(range.start, range.end, plan.reverse)) {
      if (canStop && last !== undefined && out.length >= want && !ties(last, key, plan.tiePositions)) return out;
      onExamined();
      if (seen.has(idKey)) continue;
      seen.add(idKey);
      const record = lookup(idKey);
      if (record === undefined || !matches(record.doc)) continue;
      out.push(record);
      last = key;
    }
  }
  return out;
}
