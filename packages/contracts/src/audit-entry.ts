import { z } from 'zod';

/** How a recorded request ended: done, refused by a rule (4xx), or failed on our side (5xx). */
export const AuditOutcome = z.enum(['ok', 'refused', 'failed']);
export type AuditOutcome = z.infer<typeof AuditOutcome>;

/**
 * One entry of the operator surface's audit log (collection `audit_log`): who did what to which
 * target, from where, when, and how it ended. Every write through the dashboard is one entry,
 * refused and failed ones included, and so is every sign-in and every refused credential; reads
 * are not recorded. The token never appears in an entry.
 */
export const AuditEntry = z.object({
  /** When the request finished. */
  at: z.date(),
  /**
   * What was attempted, e.g. `process.cancel`, `process.resubmit`, `bulk.create`, `agent.pause`,
   * `agent.resume`, `bull-board.write`, `sign-in`, `sign-out`, `credential.refused`, `audit.read`.
   */
  action: z.string().min(1).max(100),
  /**
   * The signed-in principal (`operator:alice`), `anonymous` when `DASHBOARD_AUTH=off`, absent
   * when the credential was refused; `cli:<user>@<host>` (self-reported) for an entry the CLI wrote
   * itself on its direct path.
   */
  principal: z.string().min(1).max(200).optional(),
  /** The principal's role, when there is one. */
  role: z.enum(['viewer', 'operator']).optional(),
  /** The client's address as the dashboard saw it (the first untrusted hop behind configured proxies); `local` for the CLI's own entries. */
  address: z.string().max(100),
  /** HTTP method and path without the query string, e.g. `POST /api/processes/p1/cancel`; `cli sas cancel` for the CLI's own entries. */
  route: z.string().min(1).max(300),
  /** What the write was about, e.g. `process p1`, `agent payment`, `queue operator.commands`. */
  target: z.string().max(300).optional(),
  /** The order the target process belongs to, so "who did what to order X" is one query. */
  orderId: z.string().max(200).optional(),
  outcome: AuditOutcome,
  /** The HTTP status answered; for an entry the CLI wrote itself (route `cli sas …`), its exit code. */
  status: z.number().int(),
  /** Why it was refused or failed, or what a sign-in was; never a credential. */
  detail: z.string().max(500).optional(),
  /** When MongoDB's TTL index removes the entry (the configured retention after `at`). */
  expiresAt: z.date(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;
