import { compareValues } from '../bson/bson-order';
import { isNumeric, isPlainObject, type Doc } from '../bson/bson-types';
import { CommandError, notImplemented } from '../errors/command-error';
import { expandedLeafValues, splitPath } from './field-path';
import type { SortField } from './query-planner';

interface SortKey {
  readonly path: string;
  readonly parts: readonly string[];
  readonly direction: 1 | -1;
}

/** A validated sort specification that orders documents in MongoDB's BSON order. */
export class Sorter {
  private constructor(private readonly keys: readonly SortKey[]) {}

  /**
   * Validates a sort spec (`{ a: 1, 'b.c': -1 }`); `undefined` or `{}` means "natural order".
   * Values must be 1 or -1; `$meta` sorts are refused as not implemented.
   */
  static compile(spec: unknown): Sorter | undefined {
    if (spec === undefined || spec === null) return undefined;
    if (!isPlainObject(spec)) throw new CommandError('TypeMismatch', 'sort must be an object');
    const keys = Object.entries(spec).map(([path, dir]): SortKey => {
      if (isPlainObject(dir)) throw notImplemented(`Sorting by ${JSON.stringify(dir)}`);
      const n = isNumeric(dir) ? Number(dir) : Number.NaN;
      if (n !== 1 && n !== -1) {
        throw new CommandError(
          'Location15975',
          '$sort key ordering must be 1 (for ascending) or -1 (for descending)',
        );
      }
      return { path, parts: splitPath(path), direction: n };
    });
    return keys.length === 0 ? undefined : new Sorter(keys);
  }

  /** The sort keys in order, for the query planner. */
  get fields(): SortField[] {
    return this.keys.map(({ path, direction }) => ({ path, direction }));
  }

  /**
   * The value a document sorts by on one key: with arrays, the smallest element ascending and
   * the largest descending (MongoDB's rule); missing sorts as null.
   */
  private keyOf(doc: Doc, key: SortKey): unknown {
    const values = expandedLeafValues(doc, key.parts);
    let best: unknown = values[0];
    for (const v of values) {
      const c = compareValues(v, best);
      if ((key.direction === 1 && c < 0) || (key.direction === -1 && c > 0)) best = v;
    }
    return best === undefined ? null : best;
  }

  /** Compares two documents; 0 keeps their incoming (natural) order. */
  compare(a: Doc, b: Doc): number {
    for (const key of this.keys) {
      const c = compareValues(this.keyOf(a, key), this.keyOf(b, key));
      if (c !== 0) return c * key.direction;
    }
    return 0;
  }

  /** Returns a new array in sort order; ties keep natural order (the sort is stable). */
  sort(docs: readonly Doc[]): Doc[] {
    const decorated = docs.map((doc) => ({ doc, keys: this.keys.map((k) => this.keyOf(doc, k)) }));
    decorated.sort((a, b) => {
      for (let i = 0; i < this.keys.length; i++) {
        const c = compareValues(a.keys[i], b.keys[i]);
        if (c !== 0) return c * (this.keys[i] as SortKey).direction;
      }
      return 0;
    });
    return decorated.map((d) => d.doc);
  }
}
