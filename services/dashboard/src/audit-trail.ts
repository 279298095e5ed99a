import type { AuditEntry, AuditOutcome } from '@sas/contracts';
import type { RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { DashboardPrincipal } from './dashboard-credentials';

/** Where audit entries go: `MongoAuditLog` from `@sas/store` is the real one. */
export interface AuditSink {
  record(entry: AuditEntry): Promise<void>;
}

/** What a handler says about the request it answered, for its audit entry. */
export interface AuditNote {
  /** e.g. `process.cancel`; @default `http.write` */
  action?: string;
  target?: string;
  orderId?: string;
  detail?: string;
}

/** What {@link auditTrail} needs. */
export interface AuditTrailDeps {
  sink: AuditSink;
  logger: Logger;
  /** How long an entry is kept before MongoDB's TTL removes it. */
  retentionMs: number;
  now: () => Date;
  /** Whether `DASHBOARD_AUTH=off`: entries then name the principal `anonymous`. */
  authOff: boolean;
}

// Defined next to the audit log, since the CLI's own entries (direct path) are kept as long.
export { DEFAULT_AUDIT_RETENTION_MS } from '@sas/store';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

type AuditLocals = { audit?: AuditNote; principal?: DashboardPrincipal; credentialRefused?: boolean; errorMessage?: string };

/** Adds to the audit entry of this request (the action, its target, why it was refused). */
export function noteAudit(res: Response, note: AuditNote): void {
  const locals = res.locals as AuditLocals;
  locals.audit = { ...locals.audit, ...note };
}

/** Marks the request as one whose credential was refused, so it is recorded even when it only read. */
export function noteCredentialRefused(res: Response, detail: string): void {
  (res.locals as AuditLocals).credentialRefused = true;
  noteAudit(res, { action: 'credential.refused', detail });
}

function outcomeOf(status: number): AuditOutcome {
  return status < 400 ? 'ok' : status < 500 ? 'refused' : 'failed';
}

/** Keeps a text field inside the entry's bounds (a long path or message is cut, not refused). */
const cut = (text: string | undefined, max: number): string | undefined => (text === undefined ? undefined : text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * Records one audit entry when a request finishes, if it was a write (any method but GET, HEAD
 * and OPTIONS, whatever its outcome), a sign-in (the login route notes it), or a refused
 * credential. A write that arrived with no credential at all is answered 401 and not recorded:
 * it reached nothing and names no one, and recording it would let anyone fill the log for free.
 * Recording happens after the answer, so a MongoDB fault cannot fail the request; it is logged.
 */
export function auditTrail(deps: AuditTrailDeps): RequestHandler {
  return (req, res, next) => {
    res.on('finish', () => {
      const locals = res.locals as AuditLocals;
      const write = !READ_METHODS.has(req.method);
      if (!write && locals.audit === undefined) return;
      if (write && locals.principal === undefined && !deps.authOff && !locals.credentialRefused && locals.audit === undefined) return;
      const at = deps.now();
      const principal = locals.principal?.id ?? (deps.authOff ? 'anonymous' : undefined);
      const note = locals.audit ?? {};
      const detail = cut(note.detail ?? (res.statusCode >= 400 ? locals.errorMessage : undefined), 500);
      const target = cut(note.target, 300);
      const orderId = cut(note.orderId, 200);
      const entry: AuditEntry = {
        at,
        action: note.action ?? 'http.write',
        ...(principal !== undefined ? { principal } : {}),
        ...(locals.principal ? { role: locals.principal.role } : {}),
        address: cut(req.ip ?? req.socket.remoteAddress ?? 'unknown', 100)!,
        route: cut(`${req.method} ${req.originalUrl.split('?')[0]}`, 300)!,
        ...(target !== undefined ? { target } : {}),
        ...(orderId !== undefined ? { orderId } : {}),
        outcome: outcomeOf(res.statusCode),
        status: res.statusCode,
        ...(detail !== undefined ? { detail } : {}),
        expiresAt: new Date(at.getTime() + deps.retentionMs),
      };
      deps.sink.record(entry).catch((e: unknown) => {
        deps.logger.error({ err: e instanceof Error ? e.message : String(e), audit: { ...entry, at: entry.at.toISOString() } }, 'could not store an audit entry; it is only in this log line');
      });
    });
    next();
  };
}
