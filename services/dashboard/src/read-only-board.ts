import type { RequestHandler } from 'express';
import { sendError } from './api-errors';
import { noteAudit } from './audit-trail';

/**
 * In front of bull-board: every write (add, edit, retry, promote, clean, pause, empty, obliterate)
 * is refused and audited, whoever asks. bull-board cannot say who acts, so a write there would
 * not be attributable (an `operator.commands` job added there could name anyone as `by`); the
 * boards are read-only too (`readOnlyMode`), which also hides the buttons. Writes go through the
 * dashboard's API, which records the signed-in principal.
 */
export const readOnlyBoard: RequestHandler = (req, res, next) => {
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
  const queue = /^\/api\/queues\/([^/?]+)/.exec(req.path)?.[1];
  noteAudit(res, { action: 'bull-board.write', ...(queue !== undefined ? { target: `queue ${decodeURIComponent(queue)}` } : {}) });
  sendError(
    res,
    403,
    `bull-board is read-only here: ${req.method} ${req.originalUrl.split('?')[0]} is refused. Resubmit or cancel a process with POST /api/processes/<id>/resubmit|cancel (or the page), which records who did it`,
  );
};
