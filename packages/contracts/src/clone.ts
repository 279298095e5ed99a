/**
 * A deep copy of a document: the state machine copies the process it changes, and the in-memory
 * stores copy every value in and out (nobody may change stored state except through a write), so
 * this runs several times per transition: copying plain objects, arrays and Dates directly is
 * several times faster than `structuredClone`. Dates are recognised by their tag, not `instanceof`, because a document
 * may hold Dates of another realm (jest runs tests in a VM context; `structuredClone` makes Dates
 * of the main one). Anything else (a Map, a Buffer, a class instance) goes through `structuredClone`.
 */
export function clone<T>(value: T): T {
  return copy(value) as T;
}

function copy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copy);
  const tag = Object.prototype.toString.call(value);
  if (tag === '[object Date]') return new Date((value as Date).getTime());
  const proto = Object.getPrototypeOf(value) as unknown;
  if (tag !== '[object Object]' || (proto !== null && Object.getPrototypeOf(proto) !== null)) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = copy((value as Record<string, unknown>)[key]);
  return out;
}
