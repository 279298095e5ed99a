import { CommandError } from '../errors/command-error';
import { isPlainObject } from '../bson/bson-types';

/** True for a path component that addresses an array element (`steps.2.state`). */
export function isArrayIndex(part: string): boolean {
  return /^(0|[1-9][0-9]*)$/.test(part);
}

/** Splits a dotted path, rejecting empty components as MongoDB does. */
export function splitPath(path: string): string[] {
  const parts = path.split('.');
  if (parts.some((p) => p === '')) {
    throw new CommandError(
      'BadValue',
      `FieldPath field names may not be empty strings (got path '${path}').`,
    );
  }
  return parts;
}

function walk(value: unknown, parts: readonly string[], i: number, out: unknown[]): void {
  if (i === parts.length) {
    out.push(value);
    return;
  }
  const part = parts[i] as string;
  if (Array.isArray(value)) {
    // MongoDB reads a numeric component both as a position and as a field of each element.
    if (isArrayIndex(part) && Number(part) < value.length) walk(value[Number(part)], parts, i + 1, out);
    for (const element of value) if (isPlainObject(element)) walk(element, parts, i, out);
    return;
  }
  if (isPlainObject(value)) {
    walk(value[part], parts, i + 1, out);
    return;
  }
  out.push(undefined);
}

/**
 * Every value a dotted path reaches in a document, descending through sub-documents and through
 * arrays of sub-documents (`steps.state` reaches each step's state). Leaf arrays are returned
 * whole; `undefined` stands for a missing field. Never empty: a path that reaches nothing yields
 * `[undefined]`.
 */
export function leafValues(doc: unknown, parts: readonly string[]): unknown[] {
  const out: unknown[] = [];
  walk(doc, parts, 0, out);
  return out.length === 0 ? [undefined] : out;
}

/** Like {@link leafValues} but with leaf arrays opened into their elements (an empty array yields `undefined`), as index keys and sort keys see them. */
export function expandedLeafValues(doc: unknown, parts: readonly string[]): unknown[] {
  const out: unknown[] = [];
  for (const value of leafValues(doc, parts)) {
    if (Array.isArray(value)) {
      if (value.length === 0) out.push(undefined);
      else out.push(...value);
    } else {
      out.push(value);
    }
  }
  return out;
}
