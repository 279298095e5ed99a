import type { RequestHandler } from 'express';

/**
 * `Cache-Control: no-store` on every answer of the JSON API and bull-board's API, whatever the
 * route, status or credential: they hold orders, reasons, audit entries and queue contents, which
 * a shared proxy or the browser's disk cache must not keep for the next person. Set before any
 * route answers, so a route added later carries it too.
 */
export const apiNoStore: RequestHandler = (req, res, next) => {
  const path = req.originalUrl;
  if (path === '/api' || path.startsWith('/api/') || path.startsWith('/api?') || path.startsWith('/queues/api')) res.set('cache-control', 'no-store');
  next();
};
