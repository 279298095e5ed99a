import { Long } from 'bson';
import { doubleResult, integralResult, toNumber, typeAlias } from '../bson/bson-types';
import { notImplemented } from '../errors/command-error';

/**
 * Adds two BSON numbers with MongoDB's type rules: any double makes a double; int + int stays
 * int until it overflows into a long; anything with a long is a long. Keeping the type matters
 * because drivers and `$type` see it.
 */
export function addNumbers(a: unknown, b: unknown): unknown {
  const ta = typeAlias(a);
  const tb = typeAlias(b);
  if (ta === 'decimal' || tb === 'decimal') throw notImplemented('Decimal128 arithmetic');
  if (ta === 'double' || tb === 'double') return doubleResult(toNumber(a) + toNumber(b));
  if (ta === 'long' || tb === 'long') {
    const sum = Long.fromValue(toLong(a)).add(toLong(b));
    return sum;
  }
  return integralResult(toNumber(a) + toNumber(b));
}

function toLong(value: unknown): Long {
  return typeAlias(value) === 'long' ? (value as Long) : Long.fromNumber(toNumber(value));
}
