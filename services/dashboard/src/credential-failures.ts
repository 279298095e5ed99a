import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import { sendError } from './api-errors';
import type { AuthLimits } from './auth-limits';

/** Which credential was refused: a bearer header, a `/login?token=` link, or a login cookie. */
export type CredentialKind = 'bearer' | 'login' | 'cookie';

/** What {@link CredentialFailures} needs. */
export interface CredentialFailuresDeps {
  limits: AuthLimits;
  logger: Logger;
  /** Gets `sas_dashboard_credential_failures_total` and `sas_dashboard_credential_limited_total`. @default none */
  metrics?: Registry;
}

/**
 * What happens to a refused credential: it is logged (address, kind, route; never the token),
 * counted in a metric, and counted against its client address and token prefix by
 * {@link AuthLimits}, which answers 429 with `Retry-After` once either is over its limit.
 */
export class CredentialFailures {
  private readonly failures: Counter<'kind'>;
  private readonly limited: Counter;

  constructor(private readonly deps: CredentialFailuresDeps) {
    const registers = deps.metrics ? [deps.metrics] : [];
    this.failures = new Counter({ name: 'sas_dashboard_credential_failures_total', help: 'Credentials the dashboard refused (wrong bearer token, login link or forged cookie), by kind', labelNames: ['kind'], registers });
    this.limited = new Counter({ name: 'sas_dashboard_credential_limited_total', help: 'Requests answered 429 because their address or token prefix failed too often', registers });
  }

  /** How long this request's address (or token prefix) must wait, counting the refusal when it must. */
  async blockedFor(req: Request, token?: string): Promise<number | undefined> {
    const wait = await this.deps.limits.blockedFor(clientAddress(req), token);
    if (wait !== undefined) this.limited.inc();
    return wait;
  }

  /** Logs, counts and limits one refused credential; returns how long to wait when it went past a limit. */
  async failed(req: Request, kind: CredentialKind, reason: string, token?: string): Promise<number | undefined> {
    this.failures.inc({ kind });
    const wait = await this.deps.limits.failed(clientAddress(req), token);
    this.deps.logger.warn(
      { address: clientAddress(req), kind, route: `${req.method} ${req.originalUrl.split('?')[0]}`, ...(wait !== undefined ? { blockedForMs: wait } : {}) },
      wait !== undefined ? `credential refused (${reason}); too many failures, this client is refused for ${Math.ceil(wait / 1000)} s` : `credential refused (${reason})`,
    );
    if (wait !== undefined) this.limited.inc();
    return wait;
  }
}

/** The address limits and audit entries use: `req.ip`, which honours only the proxies `trust proxy` names. */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/** Answers 429 with `Retry-After` in whole seconds: JSON for the API and bull-board's API, a short page otherwise. */
export function answerTooMany(req: Request, res: Response, waitMs: number): void {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  res.set('retry-after', String(seconds)).set('cache-control', 'no-store');
  const why = `Too many failed sign-ins from this address or with this token prefix; try again in ${seconds} s with a token from DASHBOARD_TOKENS`;
  const path = req.originalUrl;
  if (path.startsWith('/api') || path.startsWith('/queues/api')) return sendError(res, 429, why);
  res.status(429).type('html').send(`<!doctype html><meta charset="utf-8"><title>sas dashboard: too many attempts</title><h1>Too many attempts</h1><p>${why}.</p>\n`);
}
