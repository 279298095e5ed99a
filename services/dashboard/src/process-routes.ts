import { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { OperatorCommand } from '@sas/contracts';
import { sendError } from './api-errors';
import { noteAudit } from './audit-trail';
import { principalOf } from './dashboard-access';
import type { CommandSender } from './command-sender';
import { signalRoute } from './signal-route';
import type { SignalSender } from './signal-sender';
import { OperatorRequestBody, ProcessIdParams, operatorBy } from './operator-request';
import { parseInput } from './parse-input';
import { ProcessListQuery, nextCursor } from './process-list-query';
import type { ProcessReadModel } from './process-read-model';
import { noQuery } from './no-query';

/** What {@link processRoutes} needs. */
export interface ProcessRoutesDeps {
  readModel: ProcessReadModel;
  commands: CommandSender;
  /** Sends signals (`POST /:id/signal`). @default none: that route answers 404 */
  signals?: SignalSender;
  logger: Logger;
}

/**
 * `/api/processes`: list and inspect processes, and resubmit, cancel or signal one. The dashboard never
 * changes a process itself: it asks a scheduler, which applies the command through the same engine
 * (and the same conditional writes) as everything else, and shows what the scheduler answered.
 */
export function processRoutes(deps: ProcessRoutesDeps): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    const query = parseInput(ProcessListQuery, req.query, 'query');
    if (!query.ok) return sendError(res, 400, query.error);
    const processes = await deps.readModel.list(query.data);
    const last = processes.at(-1);
    // A full page may have more behind it: `next` is the `before` of the following page.
    const next = processes.length === query.data.limit && last ? nextCursor(last) : null;
    res.json({ processes, next });
  });

  router.get('/:id', noQuery, async (req, res) => {
    const params = parseInput(ProcessIdParams, req.params, 'path');
    if (!params.ok) return sendError(res, 400, params.error);
    const doc = await deps.readModel.find(params.data.id);
    if (!doc) return sendError(res, 404, notFound(params.data.id));
    res.json({ ...doc, history: await deps.readModel.history(doc._id) });
  });

  router.post('/:id/resubmit', noQuery, (req, res) => command('resubmit', req, res));
  router.post('/:id/cancel', noQuery, (req, res) => command('cancel', req, res));
  router.post('/:id/signal', noQuery, signalRoute(deps));

  async function command(name: OperatorCommand['command'], req: Request, res: Response): Promise<void> {
    noteAudit(res, { action: `process.${name}`, target: `process ${String(req.params['id'])}` });
    const params = parseInput(ProcessIdParams, req.params, 'path');
    if (!params.ok) return sendError(res, 400, params.error);
    const rawBody: unknown = req.body;
    const body = parseInput(OperatorRequestBody, rawBody ?? {}, 'body');
    if (!body.ok) return sendError(res, 400, body.error);
    const doc = await deps.readModel.find(params.data.id);
    if (!doc) return sendError(res, 404, notFound(params.data.id));
    noteAudit(res, { target: `process ${doc._id}`, orderId: doc.orderId, ...(body.data.reason ? { detail: body.data.reason } : {}) });
    const by = operatorBy(principalOf(res)?.id);
    const outcome = await deps.commands.send(name, doc._id, by, body.data.reason);
    deps.logger.info({ command: name, processId: doc._id, by, answered: outcome.answered, ok: outcome.answered && outcome.result.ok }, 'operator command');
    if (!outcome.answered) {
      return sendError(
        res,
        504,
        `No scheduler answered '${name} ${doc._id}' within ${outcome.waitedMs} ms; check that schedulers are running and consuming operator.commands, then look at the process before trying again (the command may still be applied)`,
      );
    }
    if (!outcome.result.ok) return sendError(res, 409, `The scheduler refused to ${name} ${doc._id}: ${outcome.result.message}`, { result: outcome.result });
    res.json(outcome.result);
  }

  return router;
}

function notFound(id: string): string {
  return `No process has the id or orderId '${id}'; check the id, or it was removed after its retention period`;
}
