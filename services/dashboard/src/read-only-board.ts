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
  noteAudit(res, { action: 'bull-board.write', ...boardTarget(req.path) });
  sendError(
    res,
    403,
    `bull-board is read-only here: ${req.method} ${req.originalUrl.split('?')[0]} is refused. Resubmit or cancel a process with POST /api/processes/<id>/resubmit|cancel (or the page), which records who did it`,
  );
};

/**
 * What a bull-board write was aimed at: `PUT /api/queues/pause` and `/resume` act on every queue
 * (bull-board's "pause all"), not on a queue named `pause`; `/api/queues/<name>/…` on that queue.
 */
function boardTarget(path: string): { target?: string } {
  if (/^\/api\/queues\/(pause|resume)\/?$/.test(path)) return { target: 'every queue' };
  const queue = /^\/api\/queues\/([^/?]+)\//.exec(path)?.[1];
  return queue !== undefined ? { target: `queue ${decodeURIComponent(queue)}` } : {};
}
