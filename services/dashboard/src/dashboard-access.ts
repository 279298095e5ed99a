import { Router, type Request, type RequestHandler, type Response } from 'express';
import { sendError } from './api-errors';
import { noteAudit, noteCredentialRefused } from './audit-trail';
import { answerTooMany, type CredentialFailures } from './credential-failures';
import type { DashboardCredentials, DashboardPrincipal } from './dashboard-credentials';
import { crossSiteSource } from './cross-site-navigation';
import { LoginCookie, loginCookieName } from './login-cookie';
import { SessionRevocations } from './session-revocations';
import { sameOriginGuard } from './same-origin-guard';

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

/** How this dashboard tells itself apart from others on the same host. */
export interface AccessOptions {
  /** `DASHBOARD_INSTANCE_NAME`: names the login cookie (see `loginCookieName`). @default the port the browser used */
  instanceName?: string | undefined;
  /** Sign-ins ended by `POST /logout`: their cookies are refused from then on. @default none: a copied cookie works until it expires */
  sessions?: SessionRevocations | undefined;
}

/** This dashboard's login cookie name for this request (see `loginCookieName`). */
const cookieNameOf = (req: Request, options: AccessOptions): string => loginCookieName(req.get('host'), options.instanceName);

/** The credential a request carries, if any: a bearer header wins over the login cookie. */
type Presented = { kind: 'bearer'; token: string } | { kind: 'cookie'; value: string } | undefined;

function presented(req: Request, options: AccessOptions): Presented {
  const header = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
  if (header) return { kind: 'bearer', token: header[1]! };
  // Only this dashboard's own cookie: another dashboard's on the same host is not a credential here.
  const value = cookie(req, cookieNameOf(req, options));
  return value === undefined ? undefined : { kind: 'cookie', value };
}

/** The caller, or why there is none: a wrong credential, or a genuine login cookie past its expiry. */
function authenticate(
  credentials: DashboardCredentials,
  credential: NonNullable<Presented>,
): { principal: DashboardPrincipal; expired?: undefined } | { principal?: undefined; expired: boolean } {
  if (credential.kind === 'bearer') {
    const principal = credentials.byToken(credential.token);
    return principal ? { principal } : { expired: false };
  }
  const check = credentials.byCookie(credential.value);
  return check.ok ? { principal: check.principal } : { expired: check.reason === 'expired' };
}

function setPrincipal(res: Response, principal: DashboardPrincipal): void {
  (res.locals as { principal?: DashboardPrincipal }).principal = principal;
}

/** Attributes shared by setting and clearing the cookie: a browser clears only the cookie with the same path. */
const cookieAttributes = (req: Request): string => `Path=/; HttpOnly; SameSite=Strict${req.secure ? '; Secure' : ''}`;

/** Short page for a browser that is not signed in (or used a wrong login link, or signed out). */
function signInPage(res: Response, why: string, status = 401): void {
  res
    .status(status)
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
 * HttpOnly, SameSite=Strict login cookie with `Max-Age` the session TTL and redirects to `/`.
 * `POST /logout` clears the cookie and answers the sign-in page; it needs no credential (signing
 * out is always allowed) but refuses another site's request, so a page elsewhere cannot sign an
 * operator out. With authentication off `/login` only redirects and `/logout` only answers.
 * A wrong token counts against the client's address and the token's prefix (see
 * {@link CredentialFailures}); sign-ins, failed ones and sign-outs are audited.
 */
export function loginRoute(auth: DashboardAuth, failures: CredentialFailures, options: AccessOptions = {}): Router {
  const router = Router();
  router.get('/login', async (req, res) => {
    res.set('referrer-policy', 'no-referrer').set('cache-control', 'no-store');
    if (auth === 'off') return res.redirect(303, '/');
    // Another site's page (an <img>, a frame) must not be able to count failures against the
    // operator's address: its request is neither checked nor counted.
    const elsewhere = crossSiteSource(req);
    if (elsewhere !== undefined) {
      return signInPage(res, `This login link was opened by another site's page (${elsewhere}), so it was not checked. To sign in, paste the link into the address bar yourself.`, 403);
    }
    const token = typeof req.query['token'] === 'string' ? req.query['token'] : '';
    if (token === '') return signInPage(res, 'That login link holds no token.');
    const signIn = auth.signIn(token);
    if (!signIn) {
      // Only a wrong token is held to the limit: a right one signs in whatever others failed here.
      const wait = await failures.blockedFor(req, token);
      if (wait !== undefined) return answerTooMany(req, res, wait);
      noteCredentialRefused(res, 'login link token matches no configured token');
      noteAudit(res, { action: 'sign-in.failed' });
      const blocked = await failures.failed(req, 'login', 'login link token matches no configured token', token);
      if (blocked !== undefined) return answerTooMany(req, res, blocked);
      return signInPage(res, 'That login link holds no valid token.');
    }
    setPrincipal(res, signIn.principal);
    noteAudit(res, { action: 'sign-in', detail: `login cookie issued for ${signIn.maxAgeSeconds} s` });
    res.set('set-cookie', `${cookieNameOf(req, options)}=${signIn.cookie}; Max-Age=${signIn.maxAgeSeconds}; ${cookieAttributes(req)}`);
    res.redirect(303, '/');
  });
  router.post('/logout', sameOriginGuard, async (req, res) => {
    res.set('cache-control', 'no-store');
    if (auth === 'off') return res.redirect(303, '/');
    const value = cookie(req, cookieNameOf(req, options));
    const check = value !== undefined ? auth.byCookie(value) : undefined;
    if (check?.ok) setPrincipal(res, check.principal);
    // Ends this sign-in on the server too: a copy of the cookie taken before is refused from now
    // until it would have expired. (Removing the token from DASHBOARD_TOKENS ends every sign-in.)
    const fields = value !== undefined ? LoginCookie.parse(value) : undefined;
    if (check?.ok && fields && options.sessions) await options.sessions.revoke(SessionRevocations.idOf(value!), fields.expiresAt);
    noteAudit(res, { action: 'sign-out' });
    res.set('set-cookie', `${cookieNameOf(req, options)}=; Max-Age=0; ${cookieAttributes(req)}`);
    signInPage(res, 'You are signed out.', 200);
  });
  return router;
}

/**
 * Lets a request through only with a valid bearer token or login cookie (401 otherwise: JSON for
 * `/api` and bull-board's API, a short page for the browser), and a state-changing request only
 * from an operator (403 for a viewer). Records the caller for {@link principalOf}. A wrong
 * bearer token or a forged cookie is logged, audited and counted; past the limit of its address
 * (or token prefix) every credential from there is answered 429 until the block ends.
 */
export function requireAccess(auth: DashboardAuth, failures: CredentialFailures, options: AccessOptions = {}): RequestHandler {
  return async (req, res, next) => {
    if (auth === 'off') return next();
    const credential = presented(req, options);
    const checked = credential ? authenticate(auth, credential) : { expired: false };
    // A genuine cookie of a sign-in ended by /logout is refused like an expired one (not a guess).
    const signedOut = checked.principal !== undefined && credential?.kind === 'cookie' && options.sessions !== undefined && (await options.sessions.isRevoked(SessionRevocations.idOf(credential.value)));
    const principal = signedOut ? undefined : checked.principal;
    const expired = signedOut || checked.expired === true;
    if (!principal) {
      // Only a refused credential is held to the limit: a valid one passes whatever others failed
      // from this address (a proxy, a NAT, a page elsewhere) or with this prefix.
      if (credential && !expired) {
        const wait = await failures.blockedFor(req, credential.kind === 'bearer' ? credential.token : undefined);
        if (wait !== undefined) return answerTooMany(req, res, wait);
      }
      // A genuine cookie past its expiry proves the token was known: not a guess, not counted.
      if (credential && !expired) {
        const reason = credential.kind === 'bearer' ? 'bearer token matches no configured token' : 'login cookie is forged, tampered with or dated ahead';
        noteCredentialRefused(res, reason);
        const blocked = await failures.failed(req, credential.kind, reason, credential.kind === 'bearer' ? credential.token : undefined);
        if (blocked !== undefined) return answerTooMany(req, res, blocked);
      }
      const path = req.originalUrl;
      if (path.startsWith('/api') || path.startsWith('/queues/api')) {
        res.set('www-authenticate', 'Bearer realm="sas dashboard"');
        const why = signedOut ? 'Signed out' : expired ? 'Sign-in expired' : 'Not signed in';
        return sendError(
          res,
          401,
          `${why}: ${req.method} ${path.split('?')[0]} needs Authorization: Bearer <token> with a token from DASHBOARD_TOKENS (or the cookie set by /login?token=<token>)`,
        );
      }
      return signInPage(res, signedOut ? 'You signed out; open your login link again.' : expired ? 'Your sign-in has expired; open your login link again.' : 'This dashboard needs a token.');
    }
    // Set before the role check, so a viewer's refused write is recorded under the viewer.
    setPrincipal(res, principal);
    if (principal.role !== 'operator' && !READ_METHODS.has(req.method)) {
      return sendError(
        res,
        403,
        `${principal.id} may only read; ${req.method} ${req.originalUrl.split('?')[0]} needs a token with the operator role`,
      );
    }
    next();
  };
}
