/**
 * Templates of the HTTP mapping: `{orderId}`, `{payload.amount}`, `{results.reserve-inventory.id}`,
 * `{compensates.result.chargeId}`, `{env.TOKEN}`. Pure: the scope is given, nothing is read.
 */

/** The names a reference may start with. */
export const TEMPLATE_ROOTS = [
  'agent',
  'operation',
  'orderId',
  'processId',
  'step',
  'attempt',
  'try',
  'mode',
  'idempotencyKey',
  'payload',
  'results',
  'compensates',
  'env',
] as const;

/** What references are looked up in. */
export type TemplateScope = Readonly<Record<(typeof TEMPLATE_ROOTS)[number], unknown>>;

/** One `{reference}` in a template (global: use with `matchAll` or `replace`). */
export const REFERENCE = /\{([A-Za-z_][\w-]*(?:\.[\w-]+)*)\}/g;
const WHOLE_REFERENCE = /^\{([A-Za-z_][\w-]*(?:\.[\w-]+)*)\}$/;

/** A reference that has no value in the scope at hand. */
export class MissingReferenceError extends Error {
  override readonly name = 'MissingReferenceError';
  constructor(readonly reference: string) {
    super(`{${reference}} has no value`);
  }
}

/** Every reference in a template (a string, or a JSON value whose string leaves are templates). */
export function referencesIn(template: unknown): string[] {
  return referencesAt(template).map((r) => r.reference);
}

/** A reference and where it sits in a JSON template: the keys and indexes down to its string leaf. */
export interface PlacedReference {
  reference: string;
  at: (string | number)[];
}

/** Every reference in a template with its place, so a problem can name the body field that holds it. */
export function referencesAt(template: unknown, at: (string | number)[] = []): PlacedReference[] {
  if (typeof template === 'string') return [...template.matchAll(REFERENCE)].map((m) => ({ reference: m[1] ?? '', at }));
  if (Array.isArray(template)) return template.flatMap((t, i) => referencesAt(t, [...at, i]));
  if (template !== null && typeof template === 'object') return Object.entries(template).flatMap(([k, v]) => referencesAt(v, [...at, k]));
  return [];
}

/** Every string leaf of a template with its place (a string template is its own only leaf). */
export function stringsAt(template: unknown, at: (string | number)[] = []): { text: string; at: (string | number)[] }[] {
  if (typeof template === 'string') return [{ text: template, at }];
  if (Array.isArray(template)) return template.flatMap((t, i) => stringsAt(t, [...at, i]));
  if (template !== null && typeof template === 'object') return Object.entries(template).flatMap(([k, v]) => stringsAt(v, [...at, k]));
  return [];
}

/** Every reference a template may hold, as the reference table documents it. */
export const VALID_REFERENCES =
  '{agent} {operation} {orderId} {processId} {step} {attempt} {try} {mode} {idempotencyKey} {payload} {payload.PATH} {results} {results.STEP} ' +
  '{results.STEP.PATH} {compensates} {compensates.idempotencyKey} {compensates.result} {compensates.result.PATH} {env.NAME}';

/** Roots that are text or a number: nothing can follow them. */
const TEXT_ROOTS: ReadonlySet<string> = new Set(['agent', 'operation', 'orderId', 'processId', 'step', 'attempt', 'try', 'mode', 'idempotencyKey']);

/**
 * Why a reference can never resolve, or null. Every segment is checked, not only the root: what
 * the agent fills in has a fixed shape (text, `compensates` with `idempotencyKey` and `result`, one
 * variable per `env`), and only `payload`, `results` and `compensates.result` hold the
 * application's own data, whose fields cannot be known before a request arrives.
 */
export function referenceProblem(reference: string): string | null {
  const [root = '', ...rest] = reference.split('.');
  if (TEXT_ROOTS.has(root)) {
    return rest.length === 0 ? null : `{${reference}}: ${root} is text and has no fields; write {${root}}`;
  }
  switch (root) {
    case 'payload':
    case 'results':
      return null;
    case 'env':
      return rest.length === 1 ? null : `{${reference}} must name one variable: {env.NAME}`;
    case 'compensates': {
      const [field, ...deeper] = rest;
      if (field === undefined || field === 'result') return null;
      if (field === 'idempotencyKey') {
        return deeper.length === 0 ? null : `{${reference}}: compensates.idempotencyKey is text and has no fields; write {compensates.idempotencyKey}`;
      }
      return `{${reference}}: compensates holds idempotencyKey and result only; write {compensates.idempotencyKey} or {compensates.result.FIELD}`;
    }
    default:
      return `{${reference}} is not a known reference; start it with one of ${TEMPLATE_ROOTS.join(', ')}`;
  }
}

/**
 * Why a template does not parse, or null: every `{` must open a reference `{name.path}` closed by
 * its `}`, and no `}` may stand alone. A stray brace is almost always a mistyped reference
 * (`{payload.id` sent as text), which would otherwise go to the remote as written.
 */
export function templateSyntaxProblem(template: string): string | null {
  const stray = /[{}]/.exec(template.replace(REFERENCE, (m) => ' '.repeat(m.length)));
  if (!stray) return null;
  const what = stray[0] === '{' ? "a '{' that opens no reference" : "a '}' that closes no reference";
  return `'${template}' does not parse: ${what} at character ${stray.index + 1}; write references as {name.path}, and no braces otherwise`;
}

/** The value at a dotted path, or undefined. Own properties only. */
export function lookup(scope: unknown, path: string): unknown {
  let at: unknown = scope;
  for (const key of path.split('.')) {
    if (at === null || typeof at !== 'object' || !Object.prototype.hasOwnProperty.call(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/**
 * Fills a string template. `encode` is applied to every substituted value except `{env.X}`
 * (configuration, inserted as written so that a base URL can come from the environment).
 *
 * @throws MissingReferenceError when a reference has no value.
 */
export function fillString(template: string, scope: TemplateScope, encode: (s: string) => string = (s) => s): string {
  return template.replace(REFERENCE, (_, reference: string) => {
    const text = asText(valueOf(scope, reference));
    return reference.startsWith('env.') ? text : encode(text);
  });
}

/**
 * Fills a JSON body template: a string leaf that is exactly one `{reference}` becomes the
 * referenced JSON value (`"amount": "{payload.amount}"` gives a number); other strings are filled
 * as text.
 *
 * @throws MissingReferenceError when a reference has no value.
 */
export function fillJson(template: unknown, scope: TemplateScope): unknown {
  if (typeof template === 'string') {
    const whole = WHOLE_REFERENCE.exec(template);
    return whole ? valueOf(scope, whole[1] ?? '') : fillString(template, scope);
  }
  if (Array.isArray(template)) return template.map((t) => fillJson(t, scope));
  if (template !== null && typeof template === 'object') {
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, fillJson(v, scope)]));
  }
  return template;
}

function valueOf(scope: TemplateScope, reference: string): unknown {
  const value = lookup(scope, reference);
  if (value === undefined) throw new MissingReferenceError(reference);
  return value;
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
