import { isPlainObject } from './bson-types';

/** How deeply a decoded document nests, as MongoDB's two storage checks count it. */
export interface NestingDepth {
  /** Documents and arrays on the deepest chain, the root included (a flat document is 1). */
  readonly levels: number;
  /** The deepest level that holds at least one field or element (a flat, non-empty document is 1). */
  readonly fieldLevel: number;
}

/** The children of a container: a document's or array's values, a DBRef's fields (MongoDB stores it as a document). */
function childrenOf(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (isPlainObject(value)) return Object.values(value);
  if (typeof value === 'object' && value !== null && (value as { _bsontype?: unknown })._bsontype === 'DBRef')
    return Object.values((value as { toJSON: () => Record<string, unknown> }).toJSON());
  return undefined;
}

/**
 * Measures the nesting of `doc` without recursion, looking no deeper than `cap + 1` levels: the
 * answer is exact up to there, which is all a caller comparing against a limit of `cap` needs,
 * and a value of any depth (an update can build one from a long dotted path) costs bounded stack.
 */
export function measureNesting(doc: object, cap: number): NestingDepth {
  let levels = 0;
  let fieldLevel = 0;
  const pending: [unknown, number][] = [[doc, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, level] = next;
    const children = childrenOf(value);
    if (children === undefined) continue;
    levels = Math.max(levels, level);
    if (children.length > 0) fieldLevel = Math.max(fieldLevel, level);
    if (level > cap) continue;
    for (const child of children) pending.push([child, level + 1]);
  }
  return { levels, fieldLevel };
}
