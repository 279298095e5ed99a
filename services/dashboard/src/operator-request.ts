import { z } from 'zod';

/** Who the history names when an operator does not say who they are. */
export const DEFAULT_OPERATOR = 'operator via dashboard';

/**
 * Body of `POST /api/processes/:id/resubmit` and `/cancel` (and agents' pause and resume); `{}`
 * when there is nothing to say. `reason` says why, in the process history; `by` is accepted for
 * older clients and ignored (see {@link operatorBy}).
 */
export const OperatorRequestBody = z
  .object({
    by: z.string({ invalid_type_error: 'by must be text naming the operator' }).trim().min(1, 'by must not be empty; leave it out for the default').max(100, 'by must be at most 100 characters').optional(),
    reason: z.string({ invalid_type_error: 'reason must be text' }).trim().min(1, 'reason must not be empty; leave it out if there is none').max(500, 'reason must be at most 500 characters').optional(),
  }, { invalid_type_error: 'the body must be a JSON object such as {"by":"alice","reason":"customer asked"}, or empty' })
  .strict('unknown body field; only by and reason are accepted');
export type OperatorRequestBody = z.infer<typeof OperatorRequestBody>;

/** The `:id` path segment: a process id or an orderId. */
export const ProcessIdParams = z.object({
  id: z.string().min(1, 'give a process id or an orderId').max(200, 'a process id or orderId is at most 200 characters'),
});

/**
 * The `by` the operator command carries: the signed-in principal, or (`DASHBOARD_AUTH=off`, no one
 * signed in) {@link DEFAULT_OPERATOR}. Nothing typed reaches it: a body's `by` is accepted for
 * older clients and ignored, so no one can write another name into a process history.
 */
export function operatorBy(principal?: string): string {
  return principal ?? DEFAULT_OPERATOR;
}
