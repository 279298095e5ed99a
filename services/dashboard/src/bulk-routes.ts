import type { BulkCreateOutcome } from '@sas/bulk';
import { BulkOperationRequest, type BulkOperationDocument } from '@sas/contracts';
import { Router } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { sendError } from './api-errors';
import { noteAudit } from './audit-trail';
import { principalOf } from './dashboard-access';
import { LimitQuery } from './limit-query';
import { operatorBy } from './operator-request';
import { parseInput } from './parse-input';
import { noQuery } from './no-query';

/** What the bulk routes need: `@sas/bulk`'s `BulkOperationService` satisfies it. */
export interface BulkOperations {
  create(request: BulkOperationRequest, by: string): Promise<BulkCreateOutcome>;
  get(id: string): Promise<BulkOperationDocument | null>;
  list(limit: number): Promise<BulkOperationDocument[]>;
}

const BulkIdParams = z.object({ id: z.string().min(1).max(100, 'a bulk operation id is at most 100 characters') });

/**
 * `/api/bulk`: start a bulk resubmit or cancel (operator), list operations and follow one's
 * progress (viewer). The dashboard only records the operation; a scheduler runs it.
 */
export function bulkRoutes(deps: { bulk: BulkOperations; logger: Logger }): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    const query = parseInput(LimitQuery, req.query, 'query');
    if (!query.ok) return sendError(res, 400, query.error);
    res.json({ operations: await deps.bulk.list(query.data.limit) });
  });

  router.get('/:id', noQuery, async (req, res) => {
    const params = parseInput(BulkIdParams, req.params, 'path');
    if (!params.ok) return sendError(res, 400, params.error);
    const op = await deps.bulk.get(params.data.id);
    if (!op) return sendError(res, 404, `No bulk operation '${params.data.id}'; check the id (GET /api/bulk lists them), or it was removed after its retention period`);
    res.json(op);
  });

  router.post('/', noQuery, async (req, res) => {
    noteAudit(res, { action: 'bulk.create' });
    const rawBody: unknown = req.body;
    const body = parseInput(BulkOperationRequest, rawBody ?? {}, 'body');
    if (!body.ok) return sendError(res, 400, body.error);
    noteAudit(res, { action: body.data.dryRun ? 'bulk.dry-run' : `bulk.${body.data.command}`, detail: `${body.data.reason}; filter ${JSON.stringify(body.data.filter)}` });
    const by = operatorBy(principalOf(res)?.id);
    const outcome = await deps.bulk.create(body.data, by);
    switch (outcome.kind) {
      case 'dry-run':
        return void res.json({ dryRun: true, matched: outcome.matched });
      case 'conflict':
        return sendError(res, 409, outcome.message, { id: outcome.operation._id });
      case 'existing':
        noteAudit(res, { target: `bulk ${outcome.operation._id}` });
        return void res.status(200).json({ id: outcome.operation._id, operation: outcome.operation });
      case 'created':
        noteAudit(res, { target: `bulk ${outcome.operation._id}` });
        deps.logger.info({ bulkOperation: outcome.operation._id, command: outcome.operation.command, by, expected: outcome.operation.expected }, 'bulk operation created');
        return void res.status(202).json({ id: outcome.operation._id, operation: outcome.operation });
    }
  });

  return router;
}
