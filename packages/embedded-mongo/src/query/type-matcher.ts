import { isNumeric, typeAlias } from '../bson/bson-types';
import { CommandError } from '../errors/command-error';

/** MongoDB's numeric BSON type codes for `$type`, by alias. */
const TYPE_CODES: Record<number, string> = {
  1: 'double',
  2: 'string',
  3: 'object',
  4: 'array',
  5: 'binData',
  6: 'undefined',
  7: 'objectId',
  8: 'bool',
  9: 'date',
  10: 'null',
  11: 'regex',
  13: 'javascript',
  14: 'symbol',
  16: 'int',
  17: 'timestamp',
  18: 'long',
  19: 'decimal',
  [-1]: 'minKey',
  127: 'maxKey',
};
const ALIASES = new Set([...Object.values(TYPE_CODES), 'number']);

function aliasOf(spec: unknown): string {
  if (typeof spec === 'number') {
    const alias = TYPE_CODES[spec];
    if (alias === undefined) throw new CommandError('BadValue', `Invalid numerical type code: ${spec}`);
    return alias;
  }
  if (typeof spec === 'string') {
    if (!ALIASES.has(spec)) throw new CommandError('BadValue', `Unknown type name alias: ${spec}`);
    return spec;
  }
  throw new CommandError('TypeMismatch', 'type must be represented as a number or a string');
}

/**
 * Compiles a `$type` argument (alias, numeric code, or an array of them) into a test on one
 * value. `'number'` matches every numeric type, as in MongoDB.
 */
export function typeMatcher(spec: unknown): (value: unknown) => boolean {
  const specs = Array.isArray(spec) ? spec : [spec];
  if (specs.length === 0) throw new CommandError('FailedToParse', '$type must match at least one type');
  const wanted = new Set(specs.map(aliasOf));
  return (value) => {
    if (value === undefined) return false;
    if (wanted.has('number') && isNumeric(value)) return true;
    return wanted.has(typeAlias(value));
  };
}
