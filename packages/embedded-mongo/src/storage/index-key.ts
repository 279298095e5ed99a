import { compareKeyValues } from '../query/key-interval';

/**
 * One entry of an index tree: the indexed values in key-pattern order, then the document's
 * natural-order sequence number. The sequence number makes every entry distinct and orders
 * documents with equal keys as a collection scan meets them, so results with ties come out in
 * the same order through an index as through the scan.
 */
export interface IndexKey {
  readonly values: readonly unknown[];
  /** ±Infinity only in the probe keys that start and end a range. */
  readonly seq: number;
}

/** Index direction of each key field: 1 ascending, -1 descending. */
export type Directions = readonly (1 | -1)[];

/** The order of an index: field by field in BSON order (reversed for descending fields), then natural order. */
export function indexKeyComparator(directions: Directions): (a: IndexKey, b: IndexKey) => number {
  return (a, b) => {
    for (let i = 0; i < directions.length; i++) {
      const c = compareKeyValues(a.values[i], b.values[i]);
      if (c !== 0) return c * (directions[i] as number);
    }
    return a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0;
  };
}
