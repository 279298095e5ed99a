import { z } from 'zod';
import { referenceProblem, referencesIn } from './template';
import { DEFAULT_TRANSIENT_STATUSES, type StatusPattern } from './status-class';

const Status = z.union([
  z.number().int().min(100).max(599),
  z.string().regex(/^[1-5]xx$/, "a status class is written like '5xx'"),
]) as z.ZodType<StatusPattern>;

/** A template whose references must all be known ones. */
const Template = z.string().superRefine((t, ctx) => {
  for (const r of referencesIn(t)) {
    const problem = referenceProblem(r);
    if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
  }
});

const JsonTemplate: z.ZodType<unknown> = z.unknown().superRefine((t, ctx) => {
  for (const r of referencesIn(t)) {
    const problem = referenceProblem(r);
    if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
  }
});

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
     * Statuses that mean the effect is already there (a success), e.g. `[409]`; a 2xx one carries
     * its result as a success does, any other gives the result `{}`. @default []
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
