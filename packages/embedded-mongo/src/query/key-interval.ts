import { compareValues } from '../bson/bson-order';
import { isPlainObject, typeAlias, typeRank, type Doc } from '../bson/bson-types';
import { isOperatorObject } from './query-matcher';

/**
 * A point of the key space that is no BSON value: just below (`after: false`) or just above
 * every value of one canonical type rank. `rank: -Infinity / Infinity` are the ends of the whole
 * space. Range bounds use them the way MongoDB's index bounds use type brackets: `$lte: date`
 * reads from the first Date up to `date`, never into numbers or strings.
 */
class KeyEdge {
  constructor(
    readonly rank: number,
    readonly after: boolean,
  ) {}
}

/** Below every value. */
export const LOWEST = new KeyEdge(-Infinity, false);
/** Above every value. */
export const HIGHEST = new KeyEdge(Infinity, true);

/** One end of an interval of key values. */
interface KeyBound {
  readonly value: unknown;
  readonly inclusive: boolean;
}

/** A contiguous run of key values, `low` ≤ `high` in BSON order. */
export interface KeyInterval {
  readonly low: KeyBound;
  readonly high: KeyBound;
}

function edgeVersus(edge: KeyEdge, value: unknown): -1 | 1 {
  const rank = value instanceof KeyEdge ? value.rank : typeRank(value);
  if (edge.rank !== rank) return edge.rank < rank ? -1 : 1;
  // Same rank: below-edge < every value of the rank (and the above-edge) < above-edge.
  return edge.after ? 1 : -1;
}

/** BSON order extended with {@link KeyEdge}s; `undefined` (a missing field) compares as null. */
export function compareKeyValues(a: unknown, b: unknown): number {
  if (a instanceof KeyEdge) {
    if (b instanceof KeyEdge && a.rank === b.rank && a.after === b.after) return 0;
    return edgeVersus(a, b);
  }
  if (b instanceof KeyEdge) return -edgeVersus(b, a);
  return compareValues(a, b);
}

function point(value: unknown): KeyInterval {
  const bound = { value: value === undefined ? null : value, inclusive: true };
  return { low: bound, high: bound };
}

function isEmpty(i: KeyInterval): boolean {
  const c = compareKeyValues(i.low.value, i.high.value);
  return c > 0 || (c === 0 && !(i.low.inclusive && i.high.inclusive));
}

function intersectOne(a: KeyInterval, b: KeyInterval): KeyInterval | undefined {
  const lc = compareKeyValues(a.low.value, b.low.value);
  const low = lc > 0 ? a.low : lc < 0 ? b.low : { value: a.low.value, inclusive: a.low.inclusive && b.low.inclusive };
  const hc = compareKeyValues(a.high.value, b.high.value);
  const high =
    hc < 0 ? a.high : hc > 0 ? b.high : { value: a.high.value, inclusive: a.high.inclusive && b.high.inclusive };
  const out = { low, high };
  return isEmpty(out) ? undefined : out;
}

/** The values in both lists; each list is sorted and disjoint, and so is the result. */
function intersectIntervals(a: readonly KeyInterval[], b: readonly KeyInterval[]): KeyInterval[] {
  const out: KeyInterval[] = [];
  for (const x of a)
    for (const y of b) {
      const both = intersectOne(x, y);
      if (both !== undefined) out.push(both);
    }
  return out;
}

/**
 * Values that can be bounded by an index: arrays (which MongoDB matches whole or element-wise),
 * regexes and anything whose matching the planner does not model are left to the matcher.
 */
function boundable(value: unknown): boolean {
  return !Array.isArray(value) && !(value instanceof RegExp) && typeAlias(value) !== 'regex';
}

function rangeInterval(op: string, arg: unknown): KeyInterval[] {
  // The matcher: `$gte/$lte: null` mean equality with null, `$gt/$lt: null` match nothing.
  if (arg === null) return op === '$gte' || op === '$lte' ? [point(null)] : [];
  const rank = typeRank(arg);
  const bound = { value: arg, inclusive: op === '$gte' || op === '$lte' };
  if (op === '$gt' || op === '$gte') return [{ low: bound, high: { value: new KeyEdge(rank, true), inclusive: true } }];
  return [{ low: { value: new KeyEdge(rank, false), inclusive: true }, high: bound }];
}

function inIntervals(values: readonly unknown[]): KeyInterval[] | undefined {
  if (!values.every(boundable)) return undefined;
  const sorted = values.map((v) => (v === undefined ? null : v)).sort(compareValues);
  return sorted.filter((v, i) => i === 0 || compareValues(sorted[i - 1], v) !== 0).map(point);
}

/** Intervals for one operator, or undefined when the operator does not bound the key (`$ne`, `$exists`, ...). */
function operatorIntervals(op: string, arg: unknown): KeyInterval[] | undefined {
  switch (op) {
    case '$eq':
      return boundable(arg) ? [point(arg)] : undefined;
    case '$in':
      return Array.isArray(arg) ? inIntervals(arg) : undefined;
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return boundable(arg) ? rangeInterval(op, arg) : undefined;
    default:
      return undefined;
  }
}

/**
 * The key intervals one top-level filter entry allows for its field: a superset of the values of
 * the documents it matches (in a collection with no arrays on that path), or undefined when the
 * entry bounds nothing. The matcher still runs on every document read, so a superset is enough.
 */
function fieldIntervals(spec: unknown): KeyInterval[] | undefined {
  if (!isOperatorObject(spec)) return boundable(spec) ? [point(spec)] : undefined;
  let out: KeyInterval[] | undefined;
  for (const [op, arg] of Object.entries(spec as Doc)) {
    const intervals = operatorIntervals(op, arg);
    if (intervals !== undefined) out = out === undefined ? intervals : intersectIntervals(out, intervals);
  }
  return out;
}

/** Every top-level field path of a filter with the intervals it allows; `$and`, `$or` and the like are ignored. */
export function filterIntervals(filter: Doc | undefined): Map<string, KeyInterval[]> {
  const out = new Map<string, KeyInterval[]>();
  if (filter === undefined || !isPlainObject(filter)) return out;
  for (const [path, spec] of Object.entries(filter)) {
    if (path.startsWith('$')) continue;
    const intervals = fieldIntervals(spec);
    if (intervals !== undefined) out.set(path, intervals);
  }
  return out;
}

/** True when the interval is exactly one value. */
export function isPoint(i: KeyInterval): boolean {
  return i.low.inclusive && i.high.inclusive && compareKeyValues(i.low.value, i.high.value) === 0;
}
