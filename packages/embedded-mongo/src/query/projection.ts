import { isPlainObject, type Doc } from '../bson/bson-types';
import { CommandError, notImplemented } from '../errors/command-error';
import { splitPath } from './field-path';

type Tree = Map<string, Tree | true>;

function addPath(tree: Tree, path: string): void {
  const parts = splitPath(path);
  let node = tree;
  parts.forEach((part, i) => {
    const existing = node.get(part);
    const last = i === parts.length - 1;
    if (existing === true || (last && existing !== undefined)) {
      throw new CommandError('Location31249', `Path collision at ${path}`);
    }
    if (last) {
      node.set(part, true);
    } else {
      const next: Tree = existing ?? new Map();
      node.set(part, next);
      node = next;
    }
  });
}

function include(doc: Doc, tree: Tree): Doc {
  const out: Doc = {};
  for (const [key, value] of Object.entries(doc)) {
    const node = tree.get(key);
    if (node === undefined) continue;
    if (node === true) out[key] = value;
    else if (Array.isArray(value)) out[key] = includeArray(value, node);
    else if (isPlainObject(value)) out[key] = include(value, node);
  }
  return out;
}

function includeArray(values: readonly unknown[], tree: Tree): unknown[] {
  // Inside an array, a sub-path keeps only the sub-documents (and nested arrays) it can descend into.
  return values
    .filter((v) => Array.isArray(v) || isPlainObject(v))
    .map((v) => (Array.isArray(v) ? includeArray(v, tree) : include(v as Doc, tree)));
}

function exclude(doc: Doc, tree: Tree): Doc {
  const out: Doc = {};
  for (const [key, value] of Object.entries(doc)) {
    const node = tree.get(key);
    if (node === true) continue;
    if (node === undefined) out[key] = value;
    else if (Array.isArray(value)) out[key] = excludeArray(value, node);
    else if (isPlainObject(value)) out[key] = exclude(value, node);
    else out[key] = value;
  }
  return out;
}

function excludeArray(values: readonly unknown[], tree: Tree): unknown[] {
  return values.map((v) =>
    Array.isArray(v) ? excludeArray(v, tree) : isPlainObject(v) ? exclude(v, tree) : v,
  );
}

/**
 * A validated find/`$project` projection: inclusion (`{ a: 1, 'b.c': 1 }`) or exclusion
 * (`{ a: 0 }`), with MongoDB's `_id` rule (kept unless `_id: 0`, which may join either kind).
 * Output keeps the document's own field order. `$slice`, `$elemMatch`, `$` and computed fields
 * are refused as not implemented.
 */
export class Projection {
  private constructor(
    private readonly mode: 'include' | 'exclude',
    private readonly tree: Tree,
    private readonly keepId: boolean,
  ) {}

  /** Validates a projection; `undefined` or `{}` returns `undefined` (whole documents). */
  static compile(spec: unknown): Projection | undefined {
    if (spec === undefined || spec === null) return undefined;
    if (!isPlainObject(spec)) throw new CommandError('TypeMismatch', 'projection must be an object');
    const entries = Object.entries(spec);
    if (entries.length === 0) return undefined;
    let mode: 'include' | 'exclude' | undefined;
    let keepId = true;
    let idIncluded = false;
    const tree: Tree = new Map();
    for (const [path, value] of entries) {
      if (typeof value !== 'number' && typeof value !== 'boolean') {
        throw notImplemented(
          `The projection ${JSON.stringify({ [path]: value })} (only 1/0 and true/false are)`,
        );
      }
      if (path.startsWith('$') || path.includes('.$'))
        throw notImplemented(`The positional projection '${path}'`);
      const included = value !== 0 && value !== false;
      if (path === '_id') {
        keepId = included;
        idIncluded = included;
        continue;
      }
      const wanted = included ? 'include' : 'exclude';
      if (mode !== undefined && mode !== wanted) {
        throw included
          ? new CommandError('Location31253', `Cannot do inclusion on field ${path} in exclusion projection`)
          : new CommandError('Location31254', `Cannot do exclusion on field ${path} in inclusion projection`);
      }
      mode = wanted;
      addPath(tree, path);
    }
    if (mode === undefined) mode = idIncluded ? 'include' : 'exclude';
    return new Projection(mode, tree, keepId);
  }

  /** Returns the projected copy of a document. */
  apply(doc: Doc): Doc {
    if (this.mode === 'exclude') {
      const out = exclude(doc, this.tree);
      if (!this.keepId) delete out['_id'];
      return out;
    }
    const body = include(doc, this.tree);
    if (!this.keepId || !('_id' in doc)) return body;
    return { _id: doc['_id'], ...body };
  }
}
