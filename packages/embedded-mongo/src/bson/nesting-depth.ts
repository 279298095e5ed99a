import { isPlainObject } from './bson-types';

/** How deeply a decoded document nests, as MongoDB's two storage checks count it. */
export interface NestingDepth {
  /** Documents and arrays on the deepest chain, the root included (a flat document is 1). */
  readonly levels: number;
  /** The deepest level that holds at least one field or element (a flat, non-empty document is 1). */
  readonly fieldLevel: number;
}

/** The children of a container: a document's or array's values, a DBRef's fields (MongoDB stores it as a document); undefined for any other value. */
function childrenOf(value: unknown): unknown[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) return value;
  if (isPlainObject(value)) return Object.values(value);
  if ((value as { _bsontype?: unknown })._bsontype === 'DBRef')
    return Object.values((value as { toJSON: () => Record<string, unknown> }).toJSON());
  return undefined;
}

/**
 * Measures the nesting of `doc` without recursion, looking no deeper than `cap + 1` levels: the
 * answer is exact up to there, which is all a caller comparing against a limit of `cap` needs,
 * and a value of any depth (an update can build one from a long dotted path) costs bounded stack.
 * Every write measures its document, so only containers are stacked, with their levels in a
 * parallel stack of numbers: no allocation per field.
 */
export function measureNesting(doc: object, cap: number): NestingDepth {
  let levels = 0;
  let fieldLevel = 0;
  const pending: unknown[] = [doc];
  const pendingLevels: number[] = [1];
  while (pending.length > 0) {
    const value = pending.pop();
    const level = pendingLevels.pop() as number;
    const children = childrenOf(value);
    if (children === undefined) continue;
    if (level > levels) levels = level;
    if (children.length > 0 && level > fieldLevel) fieldLevel = level;
    if (level > cap) continue;
    for (const child of children) {
      if (typeof child !== 'object' || child === null) continue; // a leaf opens no level
      pending.push(child);
      pendingLevels.push(level + 1);
    }
  }
  return { levels, fieldLevel };
}
