import { Router, type Request, type RequestHandler, type Response } from 'express';
import { sendError } from './api-errors';
import { DashboardCredentials, type DashboardPrincipal } from './dashboard-credentials';

/** Name of the login cookie `/login` sets. */
export const LOGIN_COOKIE = 'sas_dashboard';

/** The tokens to check, or `'off'` when `DASHBOARD_AUTH=off` lets anyone who reaches the port in. */
export type DashboardAuth = DashboardCredentials | 'off';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The authenticated caller of this request; `undefined` when authentication is off. */
export function principalOf(res: Response): DashboardPrincipal | undefined {
  return (res.locals as { principal?: DashboardPrincipal }).principal;
}

function cookie(req: Request, name: string): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function authenticate(credentials: DashboardCredentials, req: Request): DashboardPrincipal | undefined {
  const header = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
  if (header) return credentials.byToken(header[1]!);
  const value = cookie(req, LOGIN_COOKIE);
  return value === undefined ? undefined : credentials.byCookie(value);
}

/** Short page for a browser that is not signed in (or used a wrong login link). */
function signInPage(res: Response, why: string): void {
  res
    .status(401)
    .set('www-authenticate', 'Bearer realm="sas dashboard"')
    .set('cache-control', 'no-store')
    .type('html')
    .send(
      `<!doctype html><meta charset="utf-8"><title>sas dashboard: sign in</title><h1>Sign in</h1><p>${why}</p>` +
        '<p>Open <code>/login?token=&lt;your token&gt;</code> with a token from <code>DASHBOARD_TOKENS</code>, or send <code>Authorization: Bearer &lt;token&gt;</code>.</p>\n',
    );
}

/**
 * `GET /login?token=…`: checks the token and, when it is one of `DASHBOARD_TOKENS`, sets the
 * HttpOnly, SameSite=Strict login cookie and redirects to `/`. With authentication off it only
 * redirects.
 */
export function loginRoute(auth: DashboardAuth): Router {
  const router = Router();
  router.get('/login', (req, res) => {
    res.set('referrer-policy', 'no-referrer').set('cache-control', 'no-store');
    if (auth === 'off') return res.redirect(303, '/');
    const token = typeof req.query['token'] === 'string' ? req.query['token'] : '';
    if (!auth.byToken(token)) return signInPage(res, 'That login link holds no valid token.');
    const secure = req.secure ? '; Secure' : '';
    res.set(
      'set-cookie',
      `${LOGIN_COOKIE}=${DashboardCredentials.cookieValue(token)}; Path=/; HttpOnly; SameSite=Strict${secure}`,
    );
    res.redirect(303, '/');
  });
  return router;
}

/**
 * Lets a request through only with a valid bearer token or login cookie (401 otherwise: JSON for
 * `/api` and bull-board's API, a short page for the browser), and a state-changing request only
 * from an operator (403 for a viewer). Records the caller for {@link principalOf}.
 */
export function requireAccess(auth: DashboardAuth): RequestHandler {
  return (req, res, next) => {
    if (auth === 'off') return next();
    const principal = authenticate(auth, req);
    if (!principal) {
      const path = req.originalUrl;
      if (path.startsWith('/api') || path.startsWith('/queues/api')) {
        res.set('www-authenticate', 'Bearer realm="sas dashboard"');
        return sendError(
          res,
          401,
          `Not signed in: ${req.method} ${path.split('?')[0]} needs Authorization: Bearer <token> with a token from DASHBOARD_TOKENS (or the cookie set by /login?token=<token>)`,
        );
      }
      return signInPage(res, 'This dashboard needs a token.');
    }
    if (principal.role !== 'operator' && !READ_METHODS.has(req.method)) {
      return sendError(
        res,
        403,
        `${principal.id} may only read; ${req.method} ${req.originalUrl.split('?')[0]} needs a token with the operator role`,
      );
    }
    (res.locals as { principal?: DashboardPrincipal }).principal = principal;
    next();
  };
}
