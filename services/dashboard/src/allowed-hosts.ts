import { isIP } from 'node:net';
import type { RequestHandler } from 'express';
import { sendError } from './api-errors';

/** Names a dashboard always answers to: its own machine's, which no other site can point a browser at. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The host name of a `Host` header without its port, lowercased: `Dash.Example:4000` → `dash.example`,
 * `[::1]:4000` → `[::1]`; `undefined` when there is none.
 */
export function hostNameOf(header: string | undefined): string | undefined {
  if (header === undefined || header === '') return undefined;
  const lower = header.trim().toLowerCase();
  if (lower.startsWith('[')) {
    const end = lower.indexOf(']');
    return end > 0 ? lower.slice(0, end + 1) : undefined;
  }
  const colon = lower.lastIndexOf(':');
  return colon >= 0 ? lower.slice(0, colon) : lower;
}

const isAddressLiteral = (name: string): boolean => isIP(name.startsWith('[') ? name.slice(1, -1) : name) !== 0;

/**
 * Answers only requests whose `Host` names this dashboard, always (whether or not a login is
 * needed), so a DNS-rebinding page cannot use it: such a page, on `evil.example`, gets its
 * name resolved to the dashboard's address, and the browser then sends `Host: evil.example` and
 * treats the answers as the page's own. Accepted: {@link LOOPBACK_HOSTS}, the `names` given
 * (`DASHBOARD_ALLOWED_HOSTS` and the address the dashboard listens on), and any IP address
 * literal (`10.0.0.7:4000`): a browser sends one only to a page opened by that address, which
 * rebinding cannot forge, and probes and scrapers address pods that way. The port is not
 * compared: a port-forward (`kubectl port-forward 8080:4000`) or a published container port
 * changes it, and the name alone is what rebinding controls. Others are answered 421 with what
 * to set; `/api` in JSON.
 */
export function allowedHostsGuard(names: readonly string[]): RequestHandler {
  const allowed = new Set([...LOOPBACK_HOSTS, ...names.map((n) => n.trim().toLowerCase()).filter((n) => n !== '')]);
  const listed = [...allowed].join(', ');
  return (req, res, next) => {
    const header = req.get('host');
    const name = hostNameOf(header);
    if (name !== undefined && (allowed.has(name) || isAddressLiteral(name))) return next();
    res.set('cache-control', 'no-store');
    const why = `This dashboard does not answer to the host ${header === undefined ? '(none: the request has no Host header)' : `'${header}'`}; it answers to ${listed} and IP addresses. Open it by one of those names, or add this one to DASHBOARD_ALLOWED_HOSTS (a comma list of host names)`;
    if (req.originalUrl.startsWith('/api') || req.originalUrl.startsWith('/queues/api')) return sendError(res, 421, why);
    res.status(421).type('text/plain').send(`${why}.\n`);
  };
}
