import { MissingReferenceError, REFERENCE, lookup, type TemplateScope } from './template';

/** A filled URL would leave its path: a value made a `.` or `..` segment, which URL parsers resolve. */
export class PathEscapeError extends Error {
  override readonly name = 'PathEscapeError';
  constructor(readonly segment: string, readonly reference: string) {
    super(`the value of {${reference}} makes the path segment '${segment}', which a URL parser resolves (it would climb out of the path)`);
  }
}

// '.', '..' and their percent-encoded spellings: the WHATWG URL parser (fetch, new URL) resolves
// '%2E%2E' as it does '..', so encoding the dots cannot keep such a segment in place.
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * Fills a URL template. A value in the path is one path segment: it is URL-encoded (`/` becomes
 * `%2F`), and a segment that a value makes `.` or `..` is refused, since no encoding survives the
 * URL parser's dot-segment resolution. A value in the query (after the first literal `?`) is
 * query-encoded. `{env.X}` is configuration, inserted as written.
 *
 * @throws MissingReferenceError when a reference has no value.
 * @throws PathEscapeError when a value would make a dot segment of the path.
 */
export function fillUrl(template: string, scope: TemplateScope): string {
  let out = '';
  let inPath = true;
  // The path segment being built, and the first request value in it (null: only configuration).
  let segment = '';
  let valueIn: string | null = null;
  const endSegment = (): void => {
    if (valueIn !== null && DOT_SEGMENT.test(segment)) throw new PathEscapeError(segment, valueIn);
    segment = '';
    valueIn = null;
  };
  const literal = (text: string): void => {
    out += text;
    if (!inPath) return;
    for (const ch of text) {
      if (ch === '?' || ch === '#') {
        endSegment();
        inPath = false;
        return;
      }
      if (ch === '/') endSegment();
      else segment += ch;
    }
  };
  let last = 0;
  for (const m of template.matchAll(REFERENCE)) {
    literal(template.slice(last, m.index));
    last = m.index + m[0].length;
    const reference = m[1] ?? '';
    const value = lookup(scope, reference);
    if (value === undefined) throw new MissingReferenceError(reference);
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (reference.startsWith('env.')) {
      literal(text);
      continue;
    }
    const encoded = encodeURIComponent(text);
    out += encoded;
    if (inPath) {
      segment += encoded;
      valueIn ??= reference;
    }
  }
  literal(template.slice(last));
  if (inPath) endSegment();
  return out;
}

/** Why `url` cannot be called (it does not parse, or is not http/https), or null. */
export function urlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL';
  }
  return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? null : `is not an http: or https: URL (${parsed.protocol})`;
}

/**
 * Why a URL template can never be called, or null: it is filled with `env` and a plain value for
 * every other reference, and must then be an http(s) URL. Null too when it reads a variable `env`
 * does not set (the agent refuses that at start on its own, naming the variable), and when it
 * starts with a value from the request (checked when the call is made).
 */
export function urlTemplateProblem(template: string, env: Readonly<Record<string, string | undefined>>): string | null {
  // A URL whose start comes from the request (its scheme and host) can only be checked at run time.
  if (/^\{(?!env\.)/.test(template)) return null;
  let unset = false;
  const sample = template.replace(REFERENCE, (_, reference: string) => {
    if (!reference.startsWith('env.')) return 'x';
    const value = env[reference.slice('env.'.length)];
    if (value === undefined) unset = true;
    return value ?? '';
  });
  if (unset) return null;
  const problem = urlProblem(sample);
  return problem && `'${template}' ${problem} once its variables are filled in ('${sample}' with x for each value from a request)`;
}
