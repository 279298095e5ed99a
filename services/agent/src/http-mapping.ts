import { z } from 'zod';
import { referenceProblem, referencesAt } from './template';
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
