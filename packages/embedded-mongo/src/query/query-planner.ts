import type { Doc } from '../bson/bson-types';
import type { Directions, IndexKey } from '../storage/index-key';
import { filterIntervals, HIGHEST, isPoint, LOWEST, type KeyInterval } from './key-interval';

/** What the planner needs to know about one index it may use. */
export interface PlannableIndex {
  readonly name: string;
  readonly paths: readonly string[];
  readonly directions: Directions;
  readonly unique: boolean;
}

/** One sort key of the query: a field path and 1 (ascending) or -1 (descending). */
export interface SortField {
  readonly path: string;
  readonly direction: 1 | -1;
}

/** One contiguous stretch of an index to read: every entry between the two probe keys. */
interface IndexRange {
  readonly start: IndexKey;
  readonly end: IndexKey;
}

/** Read the whole collection in natural order. */
interface ScanPlan {
  readonly kind: 'scan';
}

/**
 * Read some ranges of one index. When `sortKeys` > 0 the reading order already follows the first
 * `sortKeys` keys of the sort, and `tiePositions` are the index fields that decide that order,
 * so a limited query can stop once it has enough documents and the next one no longer ties.
 */
export interface IndexPlan {
  readonly kind: 'index';
  readonly index: string;
  readonly ranges: readonly IndexRange[];
  readonly reverse: boolean;
  readonly sortKeys: number;
  readonly tiePositions: readonly number[];
}

export type QueryPlan = ScanPlan | IndexPlan;

/** More ranges than this (from several `$in` lists) are not worth enumerating: bound fewer fields. */
const MAX_RANGES = 4096;

function rangeCount(perField: readonly (readonly KeyInterval[])[]): number {
  return perField.reduce((n, intervals) => n * intervals.length, 1);
}

function probe(box: readonly KeyInterval[], directions: Directions, which: 'start' | 'end'): IndexKey {
  const values: unknown[] = [];
  let inclusive = true;
  box.forEach((interval, i) => {
    const bound = (which === 'start') === (directions[i] === 1) ? interval.low : interval.high;
    values.push(bound.value);
    inclusive = bound.inclusive;
  });
  // An inclusive start (or exclusive end) sits before every entry with that value; the fields
  // after the bounded prefix and the sequence number pick the side.
  const before = which === 'start' ? inclusive : !inclusive;
  for (let i = box.length; i < directions.length; i++) {
    values.push(before === (directions[i] === 1) ? LOWEST : HIGHEST);
  }
  return { values, seq: before ? -Infinity : Infinity };
}

function boxes(perField: readonly (readonly KeyInterval[])[]): KeyInterval[][] {
  let out: KeyInterval[][] = [[]];
  for (const intervals of perField) out = out.flatMap((prefix) => intervals.map((i) => [...prefix, i]));
  return out;
}

interface Candidate {
  readonly plan: IndexPlan;
  readonly score: number;
}

function planIndex(index: PlannableIndex, filter: Map<string, KeyInterval[]>, sort: readonly SortField[]): Candidate {
  // Bounded prefix: fields pinned to points, then at most one field with a range.
  const perField: KeyInterval[][] = [];
  for (const path of index.paths) {
    const intervals = filter.get(path);
    if (intervals === undefined) break;
    perField.push(intervals);
    if (!intervals.every(isPoint)) break;
  }
  while (rangeCount(perField) > MAX_RANGES) perField.pop();
  const pointFields = perField.filter((intervals) => intervals.every(isPoint)).length;
  const constant = (pos: number): boolean => pos < pointFields && perField[pos]?.length === 1;

  // Sort keys the reading order delivers: fields pinned to one value are constant and skipped.
  let sortKeys = 0;
  let reverse: boolean | undefined;
  const tiePositions: number[] = [];
  let pos = 0;
  for (const key of sort) {
    const at = index.paths.indexOf(key.path);
    if (at >= 0 && constant(at)) {
      sortKeys++;
      continue;
    }
    while (constant(pos)) pos++;
    if (index.paths[pos] !== key.path) break;
    const backwards = key.direction !== index.directions[pos];
    if (reverse !== undefined && backwards !== reverse) break;
    reverse = backwards;
    tiePositions.push(pos++);
    sortKeys++;
  }
  const ranges = boxes(perField).map((box) => ({
    start: probe(box, index.directions, 'start'),
    end: probe(box, index.directions, 'end'),
  }));
  // Order across several ranges is not modelled: the executor sorts what it reads.
  const ordered = ranges.length === 1 && tiePositions.length > 0;
  const plan: IndexPlan = {
    kind: 'index',
    index: index.name,
    ranges: reverse ? [...ranges].reverse() : ranges,
    reverse: reverse ?? false,
    sortKeys: ordered ? sortKeys : 0,
    tiePositions: ordered ? tiePositions : [],
  };
  // A field pinned only to null usually holds for most documents (missing fields index as null).
  const pointScore = perField
    .slice(0, pointFields)
    .reduce((s, intervals) => s + (intervals.every((i) => i.low.value === null) ? 1 : 3), 0);
  const unique = index.unique && pointFields === index.paths.length && ranges.length === 1;
  const score = unique
    ? 1000
    : pointScore + (perField.length > pointFields ? 2 : 0) + (plan.sortKeys > 0 ? 1 : 0);
  return { plan, score };
}

/**
 * Picks how to answer a filter and sort, as MongoDB's planner would in spirit but by a fixed
 * score instead of trial runs: a unique index pinned on every field wins; otherwise each index
 * scores for the fields it pins to values (3 each, 1 if only to null), a range on the next field
 * (2) and delivering the sort order (1); the first best index in creation order wins, and with no
 * index scoring above 0 the plan is a collection scan. Only top-level field conditions bound an
 * index (`$eq`, implicit equality, `$in`, `$gt/$gte/$lt/$lte`); everything else is left to the
 * matcher, which runs on every document read whatever the plan.
 */
export function planQuery(filter: Doc | undefined, sort: readonly SortField[], indexes: readonly PlannableIndex[]): QueryPlan {
  const intervals = filterIntervals(filter);
  let best: Candidate | undefined;
  for (const index of indexes) {
    const candidate = planIndex(index, intervals, sort);
    if (candidate.score > (best?.score ?? 0)) best = candidate;
  }
  return best?.plan ?? { kind: 'scan' };
}
