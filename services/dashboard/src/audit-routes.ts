import type { AuditQuery, StoredAuditEntry } from '@sas/store';
import { Router } from 'express';
import { z } from 'zod';
import { sendError } from './api-errors';
import { principalOf } from './dashboard-access';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, limitParam } from './limit-query';
import { parseInput } from './parse-input';

/** What the audit route reads: `MongoAuditLog` from `@sas/store` is the real one. */
export interface AuditReader {
  list(query: AuditQuery): Promise<StoredAuditEntry[]>;
}

const text = (name: string) => z.string().trim().min(1, `${name} must not be empty; leave it out for all`).max(200, `${name} is at most 200 characters`).optional();

/** Query of `GET /api/audit`. */
export const AuditListQuery = z
  .object({
    limit: limitParam(MAX_LIST_LIMIT, DEFAULT_LIST_LIMIT),
    principal: text('principal'),
    action: text('action'),
    orderId: text('orderId'),
    before: z
      .string()
      .datetime({ message: 'before must be an ISO time such as 2026-11-26T05:00:00.000Z (the at of the last entry of the previous page)' })
      .transform((t) => new Date(t))
      .optional(),
  })
  .strict('unknown query parameter; only limit, principal, action, orderId and before are accepted');

/**
 * `GET /api/audit`: the audit log, newest first, filtered by principal, action or order, for
 * operators only (a viewer is answered 403: the log names who did what, which is an operator's
 * business). `next` is the `before` of the following page.
 */
export function auditRoutes(deps: { audit: AuditReader; authOff: boolean }): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    const principal = principalOf(res);
    if (!deps.authOff && principal?.role !== 'operator') {
      return sendError(res, 403, `${principal?.id ?? 'this caller'} may not read the audit log; it needs a token with the operator role`);
    }
    const query = parseInput(AuditListQuery, req.query, 'query');
    if (!query.ok) return sendError(res, 400, query.error);
    const { limit, principal: who, action, orderId, before } = query.data;
    const entries = await deps.audit.list({ limit, ...(who !== undefined ? { principal: who } : {}), ...(action !== undefined ? { action } : {}), ...(orderId !== undefined ? { orderId } : {}), ...(before !== undefined ? { before } : {}) });
    const last = entries.at(-1);
    res.json({ entries, next: entries.length === limit && last ? last.at.toISOString() : null });
  });
  return router;
}
