import { Timestamp } from 'bson';
import { compareValues, valuesEqual } from '../bson/bson-order';
import { isNumeric, isPlainObject, typeAlias, type Doc } from '../bson/bson-types';
import { deepClone } from '../bson/deep-clone';
import { formatValue } from '../bson/format-value';
import { CommandError, notImplemented } from '../errors/command-error';
import { isArrayIndex, splitPath } from '../query/field-path';
import { checkStoredDepth } from '../storage/nesting-limit';
import { addNumbers } from './bson-arithmetic';
import { getDirect, setPath, unsetPath } from './update-paths';

const SUPPORTED = new Set([
  '$set',
  '$unset',
  '$inc',
  '$push',
  '$addToSet',
  '$setOnInsert',
  '$min',
  '$max',
  '$currentDate',
]);
const NOT_IMPLEMENTED = new Set(['$rename', '$pull', '$pullAll', '$pop', '$mul', '$bit']);

interface UpdateEntry {
  readonly op: string;
  readonly path: string;
  readonly parts: readonly string[];
  readonly arg: unknown;
}

/** Options for one application of an update. */
export interface ApplyOptions {
  /** True when the update creates the document (upsert): `$setOnInsert` applies and `_id` may be set. */
  readonly isInsert: boolean;
  /** The time `$currentDate` writes. */
  readonly now: Date;
}

function unknownModifier(name: string): CommandError {
  return new CommandError(
    'FailedToParse',
    `Unknown modifier: ${name}. Expected a valid update modifier or pipeline-style update specified as an array`,
  );
}

function comparePaths(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x === y) continue;
    if (isArrayIndex(x) && isArrayIndex(y)) return Number(x) - Number(y);
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

function checkConflicts(entries: readonly UpdateEntry[]): void {
  for (let i = 1; i < entries.length; i++) {
    const prev = entries[i - 1] as UpdateEntry;
    const cur = entries[i] as UpdateEntry;
    const isPrefix = prev.parts.length <= cur.parts.length && prev.parts.every((p, j) => p === cur.parts[j]);
    if (isPrefix) {
      throw new CommandError(
        'ConflictingUpdateOperators',
        `Updating the path '${cur.path}' would create a conflict at '${prev.path}'`,
      );
    }
  }
}

function validateEntry(op: string, path: string, arg: unknown): readonly string[] {
  const parts = splitPath(path);
  if (parts.some((p) => p.startsWith('$')))
    throw notImplemented(`The positional update operator in '${path}'`);
  if (op === '$inc' && !isNumeric(arg)) {
    throw new CommandError(
      'TypeMismatch',
      `Cannot increment with non-numeric argument: {${path}: ${formatValue(arg)}}`,
    );
  }
  if (op === '$currentDate') {
    const ok =
      arg === true ||
      arg === false ||
      (isPlainObject(arg) && (arg['$type'] === 'date' || arg['$type'] === 'timestamp'));
    if (!ok)
      throw new CommandError(
        'BadValue',
        `${path} is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'}).`,
      );
  }
  if ((op === '$push' || op === '$addToSet') && isPlainObject(arg) && '$each' in arg) {
    const extra = Object.keys(arg).filter((k) => k !== '$each');
    if (extra.length > 0) throw notImplemented(`The ${op} modifier ${extra[0] ?? ''}`);
    if (!Array.isArray(arg['$each']))
      throw new CommandError(
        'BadValue',
        `The argument to $each in ${op} must be an array but it was of type: ${typeAlias(arg['$each'])}`,
      );
  }
  return parts;
}

function itemsOf(arg: unknown): unknown[] {
  return isPlainObject(arg) && Array.isArray(arg['$each']) ? (arg['$each'] as unknown[]) : [arg];
}

/**
 * A validated update: either a replacement document or a set of update operators (`$set $unset
 * $inc $push $addToSet $setOnInsert $min $max $currentDate`, dotted paths with numeric array
 * indexes). Compiling checks what MongoDB checks before touching data: unknown modifiers
 * (code 9), non-numeric `$inc` arguments (14), conflicting paths (40); positional operators,
 * `$rename`/`$pull`/... and pipeline updates are refused as not implemented.
 */
export class UpdateApplier {
  private constructor(
    private readonly replacement: Doc | undefined,
    private readonly entries: readonly UpdateEntry[],
  ) {}

  /** Validates an update document (operators or replacement). */
  static compile(update: unknown): UpdateApplier {
    if (Array.isArray(update))
      throw notImplemented('A pipeline-style update (an array of aggregation stages)');
    if (!isPlainObject(update))
      throw new CommandError(
        'FailedToParse',
        `Update argument must be either an object or an array (got ${typeAlias(update)})`,
      );
    const keys = Object.keys(update);
    if (keys.length === 0 || !(keys[0] as string).startsWith('$')) {
      return new UpdateApplier(update, []);
    }
    const entries: UpdateEntry[] = [];
    for (const [op, fields] of Object.entries(update)) {
      if (NOT_IMPLEMENTED.has(op)) throw notImplemented(`The update operator ${op}`);
      if (!SUPPORTED.has(op)) throw unknownModifier(op);
      if (!isPlainObject(fields)) {
        throw new CommandError(
          'FailedToParse',
          `Modifiers operate on fields but we found type ${typeAlias(fields)} instead. For example: {$mod: {<field>: ...}} not {${op}: ${formatValue(fields)}}`,
        );
      }
      for (const [path, arg] of Object.entries(fields))
        entries.push({ op, path, parts: validateEntry(op, path, arg), arg });
    }
    // MongoDB 5+ applies updates in lexicographic path order, which also decides new fields' order.
    entries.sort((a, b) => comparePaths(a.parts, b.parts));
    checkConflicts(entries);
    return new UpdateApplier(undefined, entries);
  }

  /** True for a replacement document rather than update operators. */
  get isReplacement(): boolean {
    return this.replacement !== undefined;
  }

  /**
   * Returns the updated copy of `doc`; `doc` itself is never modified. The result is validated
   * for storage as MongoDB's update driver does, so an update, replacement or upsert that would
   * nest the document past 180 levels fails with Overflow (15) and nothing is written.
   */
  apply(doc: Doc, options: ApplyOptions): Doc {
    const next =
      this.replacement !== undefined ? this.applyReplacement(doc) : this.applyOperators(doc, options);
    checkStoredDepth(next);
    return next;
  }

  private applyOperators(doc: Doc, options: ApplyOptions): Doc {
    const next = deepClone(doc);
    for (const entry of this.entries) this.applyEntry(next, entry, options);
    if (
      !options.isInsert &&
      this.entries.some((e) => e.parts[0] === '_id') &&
      !valuesEqual(doc['_id'], next['_id'])
    ) {
      throw new CommandError(
        'ImmutableField',
        "Performing an update on the path '_id' would modify the immutable field '_id'",
      );
    }
    return next;
  }

  private applyReplacement(doc: Doc): Doc {
    // Not copied: the replacement was decoded from this one command, which nothing else holds, and
    // a replacement applies to one document at most (no `multi`), as an insert stores the
    // documents it decoded. Copying it was a tenth of the server's time per commit.
    const replacement = this.replacement as Doc;
    if ('_id' in replacement && '_id' in doc && !valuesEqual(replacement['_id'], doc['_id'])) {
      throw new CommandError(
        'ImmutableField',
        `After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${formatValue(replacement['_id'])}`,
      );
    }
    const { _id: replacementId, ...rest } = replacement;
    const id = '_id' in doc ? doc['_id'] : replacementId;
    return id === undefined ? rest : { _id: id, ...rest };
  }

  private applyEntry(doc: Doc, entry: UpdateEntry, options: ApplyOptions): void {
    const { op, parts, arg } = entry;
    switch (op) {
      case '$setOnInsert':
        if (options.isInsert) setPath(doc, parts, deepClone(arg));
        return;
      case '$set':
        setPath(doc, parts, deepClone(arg));
        return;
      case '$unset':
        unsetPath(doc, parts);
        return;
      case '$currentDate': {
        if (arg === false) return;
        const asTimestamp = isPlainObject(arg) && arg['$type'] === 'timestamp';
        const seconds = Math.floor(options.now.getTime() / 1000);
        setPath(
          doc,
          parts,
          asTimestamp ? new Timestamp({ t: seconds, i: 1 }) : new Date(options.now.getTime()),
        );
        return;
      }
      default:
        break;
    }
    const current = getDirect(doc, parts);
    switch (op) {
      case '$inc':
        if (current === undefined) setPath(doc, parts, arg);
        else if (!isNumeric(current)) {
          throw new CommandError(
            'TypeMismatch',
            `Cannot apply $inc to a value of non-numeric type. {_id: ${formatValue(doc['_id'])}} has the field '${parts[parts.length - 1] ?? ''}' of non-numeric type ${typeAlias(current)}`,
          );
        } else setPath(doc, parts, addNumbers(current, arg));
        return;
      case '$min':
      case '$max': {
        const c = current === undefined ? 0 : compareValues(arg, current);
        if (current === undefined || (op === '$min' ? c < 0 : c > 0)) setPath(doc, parts, deepClone(arg));
        return;
      }
      default: {
        // $push and $addToSet
        if (current !== undefined && !Array.isArray(current)) {
          throw new CommandError(
            'BadValue',
            `The field '${entry.path}' must be an array but is of type ${typeAlias(current)} in document {_id: ${formatValue(doc['_id'])}}`,
          );
        }
        const array = current === undefined ? [] : current;
        for (const item of itemsOf(arg)) {
          if (op === '$addToSet' && array.some((e) => valuesEqual(e, item))) continue;
          array.push(deepClone(item));
        }
        if (current === undefined) setPath(doc, parts, array);
      }
    }
  }
}
