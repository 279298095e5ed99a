import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/** Most issues one check lists; past that a payload is wrong wholesale and the rest add nothing. */
const MAX_LISTED_ISSUES = 20;

/** Checks a payload against a JSON Schema: one line per bad field, empty when it fits. */
export type PayloadCheck = (payload: unknown) => string[];

/**
 * Compiles a workflow's input schema (JSON Schema draft-07, checked by ajv) into a {@link PayloadCheck}
 * whose lines name each bad field by path: `payload.traveller.email: must match format "email"`.
 * Shared by the submission service and `@sas/client`, so both say the same thing about a payload.
 *
 * @throws Error with ajv's message when the schema does not compile (an unknown keyword such as
 *   `requried`, an unknown format, a bad `$ref`): strict mode, so a typo cannot accept everything.
 */
export function compilePayloadSchema(schema: Record<string, unknown>): PayloadCheck {
  // A fresh instance per schema: two workflow versions may carry the same `$id`, which one instance
  // refuses. The type and tuple lints only warn, so they are off rather than logged to the console.
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictTuples: false, strictRequired: false, logger: false });
  addFormats(ajv);
  const validate: ValidateFunction = ajv.compile(schema);
  return (payload) => {
    if (validate(payload)) return [];
    const lines = (validate.errors ?? []).map(describeError);
    if (lines.length <= MAX_LISTED_ISSUES) return lines;
    return [...lines.slice(0, MAX_LISTED_ISSUES), `… and ${lines.length - MAX_LISTED_ISSUES} more`];
  };
}

/** `payload.items[0].sku: must be string`; a missing or extra property is named in the path. */
function describeError(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  let path = pointerToPath(error.instancePath);
  let message = error.message ?? error.keyword;
  if (error.keyword === 'required' && typeof params['missingProperty'] === 'string') {
    path = appendKey(path, params['missingProperty']);
    message = 'is required';
  } else if (error.keyword === 'additionalProperties' && typeof params['additionalProperty'] === 'string') {
    path = appendKey(path, params['additionalProperty']);
    message = 'is not allowed (the schema lists no such field)';
  }
  return `${path}: ${message}`;
}

/** `/items/0/sku` → `payload.items[0].sku` (JSON Pointer, RFC 6901, as ajv reports it). */
function pointerToPath(pointer: string): string {
  if (pointer === '') return 'payload';
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : appendKey(path, part)), 'payload');
}

function appendKey(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
