import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

/**
 * Warns once when requests arrive through a proxy (`X-Forwarded-For`) that `DASHBOARD_TRUST_PROXY`
 * does not name: every client then has the proxy's address, so the audit log names the proxy and
 * every client's failed sign-ins count against one address. Valid credentials still pass (see
 * `requireAccess`), but the limit then stops a guesser only together with everyone else.
 */
export function untrustedProxyWarning(logger: Logger, trustProxy: boolean | string | number): RequestHandler {
  let warned = trustProxy !== false && trustProxy !== 0;
  return (req, _res, next) => {
    if (!warned && req.get('x-forwarded-for') !== undefined) {
      warned = true;
      logger.warn(
        { proxy: req.socket.remoteAddress },
        'requests arrive through a proxy (X-Forwarded-For) but DASHBOARD_TRUST_PROXY is unset: the audit log and the sign-in limits see every client as the proxy; set DASHBOARD_TRUST_PROXY to the proxy (its address, a CIDR such as 10.0.0.0/8, or the hop count 1)',
      );
    }
    next();
  };
}
