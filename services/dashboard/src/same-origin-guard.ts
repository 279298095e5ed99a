import type { Request, RequestHandler } from 'express';
import { sendError } from './api-errors';
import { LOGIN_COOKIE } from './login-cookie';

const hostOf = (url: string): string | undefined => {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
};

// Any dashboard's login cookie (sas_dashboard, sas_dashboard_<port|instance>): only a browser holds one.
const carriesLoginCookie = (req: Request): boolean => (req.get('cookie') ?? '').split(';').some((part) => part.trim().startsWith(LOGIN_COOKIE));

/**
 * Refuses state-changing requests a browser sent from another site (CSRF): the API can cancel
 * orders, and a browser attaches the login cookie to whatever a page elsewhere makes it send.
 * A write must carry a same-origin `Origin`, or failing that a same-origin `Referer`; a write that
 * carries the login cookie and neither header is refused too, since only a browser holds the
 * cookie and every current browser sends one of them on its own page's writes. A write with
 * neither header and no cookie is a tool (curl, scripts) authenticating with a bearer token,
 * which no other site can make a browser send, and passes.
 */
export const sameOriginGuard: RequestHandler = (req, res, next) => {
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
  const host = req.get('host');
  const origin = req.get('origin');
  if (origin !== undefined) {
    if (hostOf(origin) === host) return next();
    return sendError(res, 403, `Cross-origin request refused (Origin ${origin}); use the dashboard page served by this server, or call the API with a bearer token and no Origin header (curl, scripts)`);
  }
  const referer = req.get('referer');
  if (referer !== undefined) {
    if (hostOf(referer) === host) return next();
    return sendError(res, 403, 'Cross-origin request refused (Referer of another site); use the dashboard page served by this server, or call the API with a bearer token (curl, scripts)');
  }
  if (carriesLoginCookie(req)) {
    return sendError(res, 403, 'A write with the login cookie must say where it comes from (Origin or Referer); use the dashboard page served by this server, or call the API with a bearer token');
  }
  next();
};

/**
 * State-changing API requests accept only `Content-Type: application/json` (an empty body too,
 * with that header): an HTML form or a `text/plain` fetch, the two writes another site can make
 * a browser send without asking (no CORS preflight), are refused before anything reads them.
 */
export const jsonOnlyGuard: RequestHandler = (req, res, next) => {
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
  const type = (req.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return next();
  sendError(res, 415, `${req.method} ${req.originalUrl.split('?')[0]} accepts only Content-Type: application/json (got ${type === '' ? 'none' : type}); send a JSON object such as {"reason":"customer asked"}, or {} for none`);
};
