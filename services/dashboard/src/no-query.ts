import type { RequestHandler } from 'express';
import { sendError } from './api-errors';

/**
 * Refuses any query parameter on a route that takes none (the routes that do validate theirs
 * with a strict schema): a misspelt `?limt=5` or `?dryRun=true` on a write would otherwise be
 * dropped in silence, and the caller would believe it had been applied.
 */
export const noQuery: RequestHandler = (req, res, next) => {
  const keys = Object.keys(req.query as Record<string, unknown>);
  if (keys.length === 0) return next();
  sendError(res, 400, `Bad request query: unknown query parameter ${keys.map((k) => `'${k}'`).join(', ')}; ${req.method} ${req.baseUrl}${req.route ? String((req.route as { path: string }).path).replace(/\/$/, '') : ''} takes no query parameters`);
};
