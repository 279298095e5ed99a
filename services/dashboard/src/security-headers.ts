import { randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import { BULL_BOARD_PATH } from './bull-board-path';
import { bullBoardStyleSources } from './bull-board-style-sources';

/** The per-response nonce the page's inline script and style carry (see {@link securityHeaders}). */
export function cspNonce(res: Response): string {
  return (res.locals as { cspNonce?: string }).cspNonce ?? '';
}

const onBoard = (req: Request): boolean => req.originalUrl === BULL_BOARD_PATH || req.originalUrl.startsWith(`${BULL_BOARD_PATH}/`);
const nonceSource = (_req: unknown, res: unknown): string => `'nonce-${cspNonce(res as Response)}'`;

/**
 * Every response's security headers, set once for the whole app by `helmet`: the dashboard page,
 * the API, the sign-in page and bull-board's pages alike. The Content-Security-Policy allows no
 * framing (`frame-ancestors 'none'`, with `X-Frame-Options: DENY` for older browsers), no plugin,
 * no form target and nothing from another origin, and no `'unsafe-inline'` anywhere: the page's
 * inline script and style run by a fresh nonce; bull-board's bundle and CSS come from this origin,
 * its few inline styles by their hashes (see {@link bullBoardStyleSources}), and its
 * `<base href>` needs `base-uri 'self'`. `nosniff`, no
 * `X-Powered-By`, and `Referrer-Policy: same-origin` so the same-origin `Referer` check of writes
 * has a `Referer` to look at.
 */
export function securityHeaders(): RequestHandler[] {
  const boardStyles = ["'self'", ...bullBoardStyleSources()].join(' ');
  const nonce: RequestHandler = (_req, res, next) => {
    (res.locals as { cspNonce?: string }).cspNonce = randomBytes(16).toString('base64');
    next();
  };
  const headers = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: [(req, res) => (onBoard(req as Request) ? "'self'" : nonceSource(req, res))],
        styleSrc: [(req, res) => (onBoard(req as Request) ? boardStyles : nonceSource(req, res))],
        connectSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        baseUri: [(req) => (onBoard(req as Request) ? "'self'" : "'none'")],
        formAction: ["'none'"],
        frameAncestors: ["'none'"],
        objectSrc: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
    xPoweredBy: true,
  });
  return [nonce, headers];
}
