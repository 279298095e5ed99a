import type { RequestHandler } from 'express';
import { sendError } from './api-errors';

/**
 * Refuses state-changing requests sent by a browser from another site. The API can cancel orders
 * and has no login of its own, so a page elsewhere must not be able to make an operator's browser
 * post to it (CSRF). Browsers send `Origin` on every cross-site POST; tools like curl send none and
 * are let through, as is the dashboard's own page.
 */
export const sameOriginGuard: RequestHandler = (req, res, next) => {
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
  const origin = req.get('origin');
  if (origin === undefined) return next();
  let originHost: string | undefined;
  try {
    originHost = new URL(origin).host;
  } catch {
    originHost = undefined;
  }
  if (originHost !== undefined && originHost === req.get('host')) return next();
  sendError(res, 403, `Cross-origin request refused (Origin ${origin}); use the dashboard page served by this server, or call the API without an Origin header (curl, scripts)`);
};
