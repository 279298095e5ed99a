import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { InvalidSignalError } from '@sas/client';
import { sendError } from './api-errors';
import { noteAudit } from './audit-trail';
import { principalOf } from './dashboard-access';
import { operatorBy, ProcessIdParams } from './operator-request';
import { parseInput } from './parse-input';
import type { ProcessReadModel } from './process-read-model';
import { SignalRequestBody } from './signal-request';
import type { SignalSender } from './signal-sender';

/**
 * `POST /api/processes/:id/signal`: sends a named signal to a process (by process id or orderId)
 * and answers what the scheduler said: 200 when the process has it (consumed by its signal step,
 * kept for a later one, or a repeat counted once), 409 when refused (the process finished or is
 * being undone), 504 without an answer. An operator write like cancel: the role check refuses a
 * viewer, and the audit entry names the process, the signal and its id.
 */
export function signalRoute(deps: { readModel: ProcessReadModel; signals?: SignalSender; logger: Logger }): RequestHandler {
  return async (req, res) => {
    noteAudit(res, { action: 'process.signal', target: `process ${String(req.params['id'])}` });
    if (!deps.signals) return sendError(res, 404, 'This dashboard cannot send signals (it was started without a signal sender)');
    const params = parseInput(ProcessIdParams, req.params, 'path');
    if (!params.ok) return sendError(res, 400, params.error);
    const body = parseInput(SignalRequestBody, (req.body as unknown) ?? {}, 'body');
    if (!body.ok) return sendError(res, 400, body.error);
    const doc = await deps.readModel.find(params.data.id);
    if (!doc) return sendError(res, 404, `No process has the id or orderId '${params.data.id}'; check the id, or it was removed after its retention period`);
    const { name, signalId } = body.data;
    const data = body.data.data ?? null;
    noteAudit(res, { target: `process ${doc._id}`, orderId: doc.orderId, detail: `signal ${name}${signalId ? ` (${signalId})` : ''}` });
    const by = operatorBy(principalOf(res)?.id);
    let outcome;
    try {
      outcome = await deps.signals.send({ processId: doc._id, name, data, by, ...(signalId !== undefined && { signalId }) });
    } catch (e) {
      if (e instanceof InvalidSignalError) return sendError(res, 400, e.message);
      throw e;
    }
    deps.logger.info({ signal: name, processId: doc._id, by, answered: outcome.answered, outcome: outcome.answered ? outcome.result.outcome : undefined }, 'signal');
    if (!outcome.answered) {
      return sendError(
        res,
        504,
        `No scheduler answered signal '${name}' for ${doc._id} within ${outcome.waitedMs} ms; check that schedulers are running and consuming process.signals. Sending it again is safe: the same signal counts once`,
      );
    }
    const { result } = outcome;
    noteAudit(res, { detail: `signal ${name} (${result.signalId}): ${result.outcome}` });
    if (!result.ok) return sendError(res, result.outcome === 'not-found' ? 404 : 409, `The scheduler refused signal '${name}' for ${doc._id}: ${result.message}`, { result });
    res.json(result);
  };
}
