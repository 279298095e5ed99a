import type { Filter } from 'mongodb';
import { z } from 'zod';
import { ProcessState, type ProcessDocument } from '@sas/contracts';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, limitParam } from './limit-query';

/** A query parameter given once, as text (a repeated parameter arrives as an array). */
const once = (name: string, hint: string) =>
  z.string({ invalid_type_error: `${name} must be given once; ${hint}` }).min(1, `${name} must not be empty; ${hint} or leave it out`);

/** Separates the instant from the process id in a `next` cursor; `~` needs no escaping in a URL. */
export const CURSOR_SEPARATOR = '~';

/** The `before` cursor of the page after one that ended with this process. */
export function nextCursor(last: { updatedAt: Date; _id: string }): string {
  return `${last.updatedAt.toISOString()}${CURSOR_SEPARATOR}${last._id}`;
}

const BEFORE_FORMAT = 'before must be an ISO date (2025-01-31T12:00:00.000Z), epoch milliseconds, or the next cursor of a previous page';

/**
 * `before`: where the next page starts. An instant (ISO 8601 or epoch milliseconds) lists processes
 * updated strictly before it; the API's own `next` cursor, `<instant>~<process id>`, also keeps the
 * processes updated in that same millisecond that sort after the last one shown, so no page skips any.
 */
const Before = once('before', "pass the previous page's next cursor").transform((text, ctx) => {
  const cut = text.indexOf(CURSOR_SEPARATOR);
  const instant = cut < 0 ? text : text.slice(0, cut);
  const id = cut < 0 ? undefined : text.slice(cut + 1);
  const at = /^\d+$/.test(instant) ? new Date(Number(instant)) : new Date(instant);
  if (Number.isNaN(at.getTime()) || id === '') {
    ctx.addIssue({ code: 'custom', message: BEFORE_FORMAT });
    return z.NEVER;
  }
  return id === undefined ? { at } : { at, id };
});

/**
 * Query of `GET /api/processes`. Unknown parameters are refused rather than ignored, so a typo
 * (`status=Error`) cannot silently return every process.
 */
export const ProcessListQuery = z
  .object({
    state: z.enum(ProcessState.options, {
      errorMap: () => ({ message: `state must be one of ${ProcessState.options.join(', ')}` }),
    }).optional(),
    workflow: once('workflow', 'give a workflow name such as order-fulfilment').optional(),
    orderId: once('orderId', 'give one orderId').optional(),
    limit: limitParam(MAX_LIST_LIMIT, DEFAULT_LIST_LIMIT),
    /** Only processes after this cursor in the list's order: pass the previous page's `next`. */
    before: Before.optional(),
  })
  .strict('unknown query parameter; use state, workflow, orderId, limit and before');
export type ProcessListQuery = z.infer<typeof ProcessListQuery>;

/** The MongoDB filter of a list query; the sort (newest `updatedAt` first) is the read model's. */
export function processListFilter(query: ProcessListQuery): Filter<ProcessDocument> {
  return {
    ...(query.state ? { state: query.state } : {}),
    ...(query.workflow ? { workflow: query.workflow } : {}),
    ...(query.orderId ? { orderId: query.orderId } : {}),
    ...(query.before ? afterCursor(query.before) : {}),
  };
}

/** Processes that sort after the cursor when sorted by `updatedAt` then `_id`, both descending. */
function afterCursor(before: { at: Date; id?: string }): Filter<ProcessDocument> {
  if (before.id === undefined) return { updatedAt: { $lt: before.at } };
  return { $or: [{ updatedAt: { $lt: before.at } }, { updatedAt: before.at, _id: { $lt: before.id } }] };
}
