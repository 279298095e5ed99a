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

const toTag = Object.prototype.toString;
const hasOwn = Object.prototype.hasOwnProperty;

function copy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copy(value[i]);
    return out;
  }
  // The common cases first, without building a tag string: a plain object or a Date of this realm.
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto === Object.prototype || proto === null) return copyPlain(value as Record<string, unknown>);
  if (value instanceof Date) return new Date(value.getTime());
  const tag = toTag.call(value);
  if (tag === '[object Date]') return new Date((value as Date).getTime());
  // A plain object of another realm: its prototype is that realm's Object.prototype.
  if (tag === '[object Object]' && proto !== null && Object.getPrototypeOf(proto) === null) return copyPlain(value as Record<string, unknown>);
  return structuredClone(value);
}

/**
 * A shallow copy by spread, then each nested object replaced by its copy. Not a new object filled
 * key by key: V8 turns an object that gets more than a dozen properties through computed keys into
 * a slow dictionary-mode object, and a process document has some thirty, so every copy (and every
 * read of it afterwards, by the engine, zod and the next copy) paid for hash lookups. A spread
 * keeps the copy in fast mode and copies the primitive fields in one go.
 */
function copyPlain(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...value };
  for (const key in out) {
    const field = out[key];
    if (typeof field === 'object' && field !== null && hasOwn.call(out, key)) out[key] = copy(field);
  }
  return out;
}
