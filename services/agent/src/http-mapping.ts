import { z } from 'zod';
import { referenceProblem, referencesAt, stringsAt, templateSyntaxProblem } from './template';
import { DEFAULT_TRANSIENT_STATUSES, type StatusPattern } from './status-class';

const Status = z.union([
  z.number().int().min(100).max(599),
  z.string().regex(/^[1-5]xx$/, "a status class is written like '5xx'"),
]) as z.ZodType<StatusPattern>;

/**
 * Adds an issue for every reference of `template` that can never resolve, at the place that holds
 * it (`body.undo.id`), marked so that the file's error can list the valid references once.
 */
function checkReferences(template: unknown, ctx: z.RefinementCtx): void {
  for (const { text, at } of stringsAt(template)) {
    const problem = templateSyntaxProblem(text);
    if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem, path: at });
  }
  for (const { reference, at } of referencesAt(template)) {
    const problem = referenceProblem(reference);
    if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem, path: at, params: { reference: true } });
  }
}

/** A template whose references must all resolve, every segment checked. */
const Template = z.string().superRefine(checkReferences);

const JsonTemplate: z.ZodType<unknown> = z.unknown().superRefine(checkReferences);

/** Whether an issue is about a reference (see {@link checkReferences}). */
export function isReferenceIssue(issue: z.ZodIssue): boolean {
  return issue.code === z.ZodIssueCode.custom && issue.params?.['reference'] === true;
}

const HeaderName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'not a valid HTTP header name');

/** A status that may mean "not found": a 4xx other than 408 and 429 (a timeout, a throttle). */
function notFoundStatusProblem(pattern: StatusPattern): string | null {
  const text = String(pattern);
  const klass = typeof pattern === 'number' ? Math.floor(pattern / 100) : Number(text[0]);
  if (klass !== 4) {
    return `${text} cannot mean "not found": a 2xx carries the lookup's answer, and a 1xx, 3xx or 5xx says nothing about the effect. List 4xx statuses such as 404 or 410`;
  }
  if (pattern === 408 || pattern === 429 || pattern === '4xx') {
    const says = pattern === '4xx' ? 'the class holds 408 and 429, which say' : 'it says';
    return `${text} cannot mean "not found": ${says} the remote did not answer the question (a timeout, a throttle), and a lookup that fails must be retried, never taken as "not found". List 404 or 410`;
  }
  return null;
}

/** A lookup's fields; `key` defaults to `defaultKey`, the key the lookup's records hold. */
const lookupMappingOf = (defaultKey: string) =>
  z
    .object({
      /** @default GET */
      method: z.enum(['GET', 'POST']).default('GET'),
      /** URL template, e.g. `{env.FLIGHTS_URL}/flights?ref={idempotencyKey}`. */
      url: Template,
      /** Header templates, as the operation's. @default {} */
      headers: z.record(HeaderName, Template).default({}),
      /** JSON body template of a `POST` lookup; `null` (the default) sends none. @default null */
      body: JsonTemplate.default(null),
      /**
       * Statuses that mean "no such effect", e.g. `[404]` for `GET /bookings/{idempotencyKey}`. 4xx
       * only, never 408 or 429: anything else the lookup answers, but a 2xx, is "can't tell".
       * @default [404]
       */
      notFoundStatuses: z.array(Status).default([404]),
      /** Dotted path, in a 2xx body, of the matching record or list of records; absent: the whole body. */
      matchPath: z.string().min(1).optional(),
      /**
       * Dotted path, in a record, of the field that must equal `key`. Set it whenever the remote can
       * answer a list: it is what tells a remote that filtered by the key from one that ignored the filter.
       */
      keyPath: z.string().min(1).optional(),
      /** What `keyPath` must hold. @default "{idempotencyKey}" (a forwardLookup's: "{compensates.idempotencyKey}") */
      key: Template.default(defaultKey),
      /**
       * Dotted path of the result in a found record; absent: the whole record. A lookup that sets
       * neither this nor `resultFields` reads a found record as the operation reads a success body.
       */
      resultPath: z.string().min(1).optional(),
      /** Fields copied into the result from a found record, as the operation's `resultFields`. @default {} */
      resultFields: z.record(z.string().min(1), z.string().min(1)).optional(),
    })
    .strict()
    .superRefine((lookup, ctx) => {
      lookup.notFoundStatuses.forEach((pattern, i) => {
        const problem = notFoundStatusProblem(pattern);
        if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem, path: ['notFoundStatuses', i] });
      });
      if (lookup.method === 'GET' && lookup.body !== null) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'a GET lookup sends no body: remove body, or set method to POST', path: ['body'] });
      }
    });

/**
 * Asks the remote whether an operation's effect already exists, before a try (see
 * {@link createHttpRemoteCall}): for a remote that ignores idempotency keys. Its answer is read by
 * `readLookupAnswer`: found, not found, or can't tell (a transient failure, never "not found").
 */
export const LookupMapping = lookupMappingOf('{idempotencyKey}');
export type LookupMapping = z.infer<typeof LookupMapping>;

/**
 * On an undo, asks the remote for the record the forward call made, by the forward call's key, when
 * that call's outcome is unknown (`compensates.result` null): found, the record's result (the
 * lookup's `resultPath`/`resultFields`; absent, the whole record) fills `compensates.result` for the
 * undo's templates; not found once the forward call's complete-by has passed, there is nothing to
 * undo and nothing is sent. The same fields as a {@link LookupMapping}.
 */
export const ForwardLookupMapping = lookupMappingOf('{compensates.idempotencyKey}');

/** How one operation becomes one HTTP call. */
export const OperationMapping = z
  .object({
    /** @default POST */
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('POST'),
    /** URL template; substitutions are URL-encoded, except `{env.X}` (config, inserted as written). */
    url: Template,
    /** Header templates, e.g. `{ "Authorization": "Bearer {env.WAREHOUSE_TOKEN}" }`. */
    headers: z.record(HeaderName, Template).default({}),
    /** The header that carries the idempotency key on every try. @default Idempotency-Key */
    idempotencyHeader: HeaderName.default('Idempotency-Key'),
    /** On an undo that names its forward call, the header carrying that call's key; none when absent. */
    compensatesHeader: HeaderName.optional(),
    /**
     * The JSON body; a string leaf that is exactly one `{reference}` inserts the referenced JSON
     * value. `null`: no body. @default { "orderId": "{orderId}", "payload": "{payload}" }
     */
    body: JsonTemplate.default({ orderId: '{orderId}', payload: '{payload}' }),
    /** Statuses worth retrying; 3xx is always an unknown outcome (transient). @default [429, "5xx"] */
    transientStatuses: z.array(Status).default([...DEFAULT_TRANSIENT_STATUSES]),
    /**
     * Statuses that mean the effect is already there (a success), e.g. `[409]`. Checked before
     * anything else, so a status listed here and in `transientStatuses` (or a 3xx) is already
     * done. A 2xx one gives its result exactly as a success does; any other gives the result `{}`.
     * @default []
     */
    alreadyDoneStatuses: z.array(Status).default([]),
    /** Dotted path of the result in a success body, e.g. `data.reservation`; absent: the whole body. */
    resultPath: z.string().min(1).optional(),
    /**
     * Fields copied into the result from elsewhere in the body, by dotted path, e.g.
     * `{ "effectId": "effectId" }`; each must be present in a success body.
     */
    resultFields: z.record(z.string().min(1), z.string().min(1)).default({}),
    /**
     * For a remote that ignores idempotency keys: asked before every try whether the effect
     * already exists; when it does, the found record gives the step's result and no call is made.
     * Absent: every try is a call, and the remote must honour the key.
     */
    lookup: LookupMapping.optional(),
    /**
     * For an undo at a remote that ignores idempotency keys: asked when the forward call's outcome
     * is unknown, to find what it did (see {@link ForwardLookupMapping}). Absent: such an undo has
     * only the forward key, and a template needing `{compensates.result.…}` fails it permanently.
     */
    forwardLookup: ForwardLookupMapping.optional(),
  })
  .strict();
export type OperationMapping = z.infer<typeof OperationMapping>;

/**
 * The HTTP agent's mapping: one entry per operation; `*` maps every operation not listed
 * (`{operation}` names it). Read from `AGENT_MAPPING_FILE`.
 */
export const HttpMapping = z
  .object({
    operations: z
      .record(z.string().min(1), OperationMapping)
      .refine((o) => Object.keys(o).length > 0, 'map at least one operation (or "*")'),
  })
  .strict();
export type HttpMapping = z.infer<typeof HttpMapping>;
