import { isPlainObject, type Doc } from '../bson/bson-types';
import { formatValue } from '../bson/format-value';
import { CommandError } from '../errors/command-error';
import { isArrayIndex } from '../query/field-path';

type Container = Doc | unknown[];

function child(node: Container, part: string): unknown {
  if (Array.isArray(node)) return isArrayIndex(part) ? node[Number(part)] : undefined;
  return node[part];
}

function assign(node: Container, part: string, value: unknown): void {
  if (Array.isArray(node)) {
    const index = Number(part);
    // MongoDB pads with nulls when setting past the end of an array.
    while (node.length < index) node.push(null);
    node[index] = value;
  } else {
    node[part] = value;
  }
}

function cannotCreate(part: string, parentKey: string, parent: unknown): CommandError {
  return new CommandError(
    'PathNotViable',
    `Cannot create field '${part}' in element {${parentKey}: ${formatValue(parent)}}`,
  );
}

/** The value at a dotted path read directly (numeric components index arrays; no fan-out over array elements), for operators that read before they write. */
export function getDirect(doc: Doc, parts: readonly string[]): unknown {
  let node: unknown = doc;
  for (const part of parts) {
    if (Array.isArray(node) || isPlainObject(node)) node = child(node, part);
    else return undefined;
  }
  return node;
}

/**
 * Sets a value at a dotted path, creating missing intermediate sub-documents as MongoDB does;
 * a numeric component indexes an existing array. Descending into a scalar, a null or an array
 * by field name fails with PathNotViable (code 28), MongoDB's error.
 */
export function setPath(doc: Doc, parts: readonly string[], value: unknown): void {
  let node: Container = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i] as string;
    if (Array.isArray(node) && !isArrayIndex(part)) throw cannotCreate(part, parts[i - 1] ?? '', node);
    let next = child(node, part);
    if (next === undefined) {
      next = {};
      assign(node, part, next);
    }
    if (!Array.isArray(next) && !isPlainObject(next)) throw cannotCreate(parts[i + 1] as string, part, next);
    node = next;
  }
  const last = parts[parts.length - 1] as string;
  if (Array.isArray(node) && !isArrayIndex(last))
    throw cannotCreate(last, parts[parts.length - 2] ?? '', node);
  assign(node, last, value);
}

/** Removes the field at a dotted path; an array element is set to null instead (MongoDB keeps positions). Missing paths are a no-op. */
export function unsetPath(doc: Doc, parts: readonly string[]): void {
  let node: unknown = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    if (!Array.isArray(node) && !isPlainObject(node)) return;
    node = child(node, parts[i] as string);
  }
  const last = parts[parts.length - 1] as string;
  if (Array.isArray(node)) {
    if (isArrayIndex(last) && Number(last) < node.length) node[Number(last)] = null;
  } else if (isPlainObject(node)) {
    delete node[last];
  }
}
