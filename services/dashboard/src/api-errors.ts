import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';

/**
 * Answers an API error in the one shape every endpoint uses: `{ error }`, a sentence saying what
 * went wrong and what to do. `extra` adds fields a client can act on (the scheduler's result).
 */
export function sendError(res: Response, status: number, error: string, extra: Record<string, unknown> = {}): void {
  // Kept for the audit entry of a refused or failed write (see auditTrail).
  (res.locals as { errorMessage?: string }).errorMessage = error;
  res.status(status).json({ error, ...extra });
}

/** Unknown `/api/...` paths answer JSON like the rest of the API, not express's HTML page. */
export const apiNotFound: RequestHandler = (req, res) => {
  sendError(res, 404, `No API endpoint ${req.method} ${req.originalUrl}; see GET /api/processes, /api/summary, /api/breakers, /api/dead-letters, /api/alerts, /api/agents`);
};

/** An error raised by express's own middleware (the JSON body parser) that is the client's fault. */
interface ClientHttpError {
  status: number;
  type?: string;
  message: string;
}

function isClientError(err: unknown): err is ClientHttpError {
  if (typeof err !== 'object' || err === null) return false;
  const status = (err as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * The last handler: a client error from the body parser becomes a 4xx with a clear message; any
 * other failure (MongoDB or Redis unreachable, a bug) is logged with its stack and answered 500
 * with its message only. A stack trace never leaves the server.
 */
export function apiErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    if (isClientError(err)) {
      const what = err.type === 'entity.parse.failed' ? `the body is not valid JSON (${err.message})` : err.message;
      sendError(res, err.status, `Bad request: ${what}; send a JSON object such as {"by":"alice","reason":"customer asked"}, or no body`);
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    logger.error({ err, method: req.method, url: req.originalUrl }, 'request failed');
    sendError(res, 500, `The dashboard could not answer ${req.method} ${req.originalUrl}: ${message}. Check that MongoDB and Redis are reachable (GET /readyz) and see the dashboard log`);
  };
}
