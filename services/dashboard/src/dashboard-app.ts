import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { AgentPauseModel } from './agent-pause-model';
import { registerAgentPauseMetrics } from './agent-pause-metrics';
import { agentRoutes } from './agent-routes';
import { allowedHostsGuard } from './allowed-hosts';
import type { AlertStore } from './alert-store';
import { apiErrorHandler, apiNotFound } from './api-errors';
import { bulkRoutes, type BulkOperations } from './bulk-routes';
import type { CommandSender } from './command-sender';
import type { SignalSender } from './signal-sender';
import { renderDashboardPage } from './dashboard-page';
import { type DashboardAuth, loginRoute, principalOf, requireAccess } from './dashboard-access';
import { registerDashboardMetrics } from './dashboard-metrics';
import { healthRoutes } from './health-routes';
import { metricsRoute } from './metrics-route';
import { overviewRoutes } from './overview-routes';
import { processRoutes } from './process-routes';
import type { ProcessReadModel } from './process-read-model';
import { QueueInspector } from './queue-inspector';
import { jsonOnlyGuard, sameOriginGuard } from './same-origin-guard';
import { auditRoutes, type AuditReader } from './audit-routes';
import { DEFAULT_AUDIT_RETENTION_MS, auditTrail, type AuditSink } from './audit-trail';
import { AuthLimits, DEFAULT_AUTH_LIMITS } from './auth-limits';
import { BULL_BOARD_PATH } from './bull-board-path';
import { CredentialFailures } from './credential-failures';
import { apiNoStore } from './no-store';
import { readOnlyBoard } from './read-only-board';
import { SessionRevocations } from './session-revocations';
import { untrustedProxyWarning } from './untrusted-proxy-warning';
import { cspNonce, securityHeaders } from './security-headers';

/** Everything the dashboard app reads and talks to, passed in so tests can supply their own. */
export interface DashboardAppDeps {
  readModel: ProcessReadModel;
  /** Where consumed alerts are kept; `GET /api/alerts` lists them. */
  alerts: Pick<AlertStore, 'newest'>;
  /** Every system queue (see `systemQueueNames`); must include `alerts` and `dead-letter`. */
  queues: readonly Queue[];
  commands: CommandSender;
  /** Sends signals (`POST /api/processes/:id/signal`). @default none: that route answers 404 */
  signals?: SignalSender;
  /**
   * Who may use the dashboard: the configured tokens (see `DASHBOARD_TOKENS`), or `'off'` only
   * when `DASHBOARD_AUTH=off` says so explicitly.
   */
  auth: DashboardAuth;
  logger: Logger;
  /** Whether the Redis connection is up, for `/readyz`. */
  redisReady: () => boolean;
  /** Shown in the page header. */
  instanceId: string;
  queuePrefix: string;
  /** @default () => new Date() */
  now?: () => Date;
  /**
   * The process's registry: the dashboard adds the process and queue gauges to it and serves it
   * at `/metrics`. @default none: no `/metrics`
   */
  metrics?: Registry;
  /** Bulk operations (`/api/bulk`). @default none: the endpoints answer 404 */
  bulk?: BulkOperations;
  /** Agents' pause state; serves `/api/agents` and the pause gauges when given. @default none */
  agentPauses?: AgentPauseModel;
  /** Where every write, sign-in and refused credential is recorded, and `GET /api/audit` reads. */
  audit: AuditSink & AuditReader;
  /** How long an audit entry is kept. @default 90 days */
  auditRetentionMs?: number;
  /**
   * Counts of failed credentials per address and token prefix; `AuthLimits.onRedis` so replicas
   * share them. @default in this process only, {@link DEFAULT_AUTH_LIMITS}
   */
  authLimits?: AuthLimits;
  /**
   * express's `trust proxy`: which proxies' `X-Forwarded-For` / `X-Forwarded-Proto` are believed
   * (client address for limits and the audit log, `Secure` cookies behind TLS). @default false: none
   */
  trustProxy?: boolean | string | number;
  /**
   * Host names the dashboard answers to besides the loopback names and IP addresses (see
   * {@link allowedHostsGuard}): `DASHBOARD_ALLOWED_HOSTS` and the listening address. @default none
   */
  allowedHosts?: readonly string[];
  /**
   * `DASHBOARD_INSTANCE_NAME`: names the login cookie `sas_dashboard_<name>`, for dashboards that
   * share a host name and port (one ingress host, several paths). @default the port the browser used
   */
  instanceName?: string;
  /**
   * Sign-ins ended by `POST /logout` (`SessionRevocations` over Redis, so every replica refuses the
   * cookie). @default kept in this process
   */
  sessions?: SessionRevocations;
}


/**
 * Builds the operator surface: bull-board at `/queues` (read-only for everyone), the JSON API
 * under `/api`, the page at `/`, `/login`, and the open probes `/healthz` `/readyz` (and
 * `/metrics` when given a registry). Everything but the probes and `/login` needs a token. It only
 * reads the store and the queues; changes go to schedulers as operator commands. Every response
 * carries the security headers (see `securityHeaders`); every write, sign-in and refused
 * credential is audited (see `auditTrail`); refused credentials are limited per address and
 * token prefix (see `AuthLimits`). (Consuming alerts is wired beside it in `main.ts`, see `AlertInbox`.)
 *
 * @example
 * ```ts
 * const app = createDashboardApp({ readModel: new MongoReadModel(db), alerts: new MongoAlertStore(db), queues, commands, logger, redisReady, instanceId, queuePrefix });
 * await new DashboardServer(app).start(4000, '127.0.0.1');
 * ```
 */
export function createDashboardApp(deps: DashboardAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy ?? false);
  const inspector = new QueueInspector(deps.queues);
  const now = deps.now ?? (() => new Date());
  const failures = new CredentialFailures({ limits: deps.authLimits ?? AuthLimits.inMemory(DEFAULT_AUTH_LIMITS), logger: deps.logger, ...(deps.metrics ? { metrics: deps.metrics } : {}) });
  const board = bullBoard(deps.queues);

  app.use(securityHeaders());
  // Before everything, the probes included: a DNS-rebinding page must not read or act.
  app.use(allowedHostsGuard(deps.allowedHosts ?? []));
  app.use(apiNoStore);
  app.use(healthRoutes({ readModel: deps.readModel, redisReady: deps.redisReady }));
  if (deps.metrics) {
    registerDashboardMetrics(deps.metrics, { readModel: deps.readModel, inspector, logger: deps.logger });
    if (deps.agentPauses) registerAgentPauseMetrics(deps.metrics, deps.agentPauses, deps.logger);
    app.use(metricsRoute(deps.metrics));
  }
  app.use(untrustedProxyWarning(deps.logger, deps.trustProxy ?? false));
  app.use(auditTrail({ sink: deps.audit, logger: deps.logger, retentionMs: deps.auditRetentionMs ?? DEFAULT_AUDIT_RETENTION_MS, now, authOff: deps.auth === 'off' }));
  const access = { instanceName: deps.instanceName, sessions: deps.sessions ?? new SessionRevocations(() => now().getTime()) };
  app.use(loginRoute(deps.auth, failures, access));
  app.use(requireAccess(deps.auth, failures, access));
  app.use(sameOriginGuard);
  app.use(BULL_BOARD_PATH, readOnlyBoard, board);
  app.use('/api', jsonOnlyGuard, express.json({ limit: '16kb' }));
  app.use('/api/processes', processRoutes({ readModel: deps.readModel, commands: deps.commands, ...(deps.signals && { signals: deps.signals }), logger: deps.logger }));
  if (deps.bulk) app.use('/api/bulk', bulkRoutes({ bulk: deps.bulk, logger: deps.logger }));
  if (deps.agentPauses) app.use('/api/agents', agentRoutes({ agents: deps.agentPauses, logger: deps.logger, now }));
  app.use('/api/audit', auditRoutes({ audit: deps.audit, authOff: deps.auth === 'off' }));
  app.use('/api', overviewRoutes({ readModel: deps.readModel, inspector, alerts: deps.alerts, now }));
  app.use('/api', apiNotFound);
  app.get('/', (_req, res) => {
    const principal = principalOf(res);
    res
      .set('cache-control', 'no-store')
      .type('html')
      .send(renderDashboardPage({ nonce: cspNonce(res), instanceId: deps.instanceId, queuePrefix: deps.queuePrefix, ...(principal ? { signedInAs: principal.id, role: principal.role } : {}) }));
  });
  app.use(apiErrorHandler(deps.logger));
  return app;
}

/**
 * A bull-board over every queue, read-only (`readOnlyMode`: no add, edit, retry, promote, clean or
 * obliterate, and no buttons for them); {@link readOnlyBoard} in front refuses and audits writes.
 */
function bullBoard(queues: readonly Queue[]): ReturnType<ExpressAdapter['getRouter']> {
  const board = new ExpressAdapter();
  board.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: queues.map((q) => new BullMQAdapter(q, { readOnlyMode: true })),
    serverAdapter: board,
    options: { uiConfig: { boardTitle: 'sas queues (read-only)' } },
  });
  const router = board.getRouter() as Express;
  // bull-board mounts an express app of its own, which would add the header back to its pages.
  router.disable('x-powered-by');
  return router;
}
