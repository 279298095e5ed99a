import { randomBytes } from 'node:crypto';
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
import type { AlertStore } from './alert-store';
import { apiErrorHandler, apiNotFound } from './api-errors';
import { bulkRoutes, type BulkOperations } from './bulk-routes';
import type { CommandSender } from './command-sender';
import { pageSecurityPolicy, renderDashboardPage } from './dashboard-page';
import { type DashboardAuth, loginRoute, principalOf, requireAccess } from './dashboard-access';
import { registerDashboardMetrics } from './dashboard-metrics';
import { healthRoutes } from './health-routes';
import { metricsRoute } from './metrics-route';
import { overviewRoutes } from './overview-routes';
import { processRoutes } from './process-routes';
import type { ProcessReadModel } from './process-read-model';
import { QueueInspector } from './queue-inspector';
import { sameOriginGuard } from './same-origin-guard';

/** Everything the dashboard app reads and talks to, passed in so tests can supply their own. */
export interface DashboardAppDeps {
  readModel: ProcessReadModel;
  /** Where consumed alerts are kept; `GET /api/alerts` lists them. */
  alerts: Pick<AlertStore, 'newest'>;
  /** Every system queue (see `systemQueueNames`); must include `alerts` and `dead-letter`. */
  queues: readonly Queue[];
  commands: CommandSender;
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
}

/** Where bull-board is mounted. */
export const BULL_BOARD_PATH = '/queues';

/**
 * Builds the operator surface: bull-board at `/queues` (read-write for operators, who retry failed
 * jobs there; read-only for viewers), the JSON API under `/api`, the page at `/`, `/login`, and
 * the open probes `/healthz` `/readyz` (and `/metrics` when given a registry). Everything but the probes and `/login` needs a token. It only reads the
 * store and the queues; changes go to schedulers as operator commands. (Consuming alerts is wired
 * beside it in `main.ts`, see `AlertInbox`.)
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
  const inspector = new QueueInspector(deps.queues);

  const operatorBoard = bullBoard(deps.queues, false);
  const viewerBoard = bullBoard(deps.queues, true);

  app.use(healthRoutes({ readModel: deps.readModel, redisReady: deps.redisReady }));
  if (deps.metrics) {
    registerDashboardMetrics(deps.metrics, { readModel: deps.readModel, inspector, logger: deps.logger });
    if (deps.agentPauses) registerAgentPauseMetrics(deps.metrics, deps.agentPauses, deps.logger);
    app.use(metricsRoute(deps.metrics));
  }
  app.use(loginRoute(deps.auth));
  app.use(requireAccess(deps.auth));
  app.use(sameOriginGuard);
  app.use(BULL_BOARD_PATH, (req, res, next) => (principalOf(res)?.role === 'viewer' ? viewerBoard : operatorBoard)(req, res, next));
  app.use('/api', express.json({ limit: '16kb' }));
  app.use('/api/processes', processRoutes({ readModel: deps.readModel, commands: deps.commands, logger: deps.logger }));
  if (deps.bulk) app.use('/api/bulk', bulkRoutes({ bulk: deps.bulk, logger: deps.logger }));
  if (deps.agentPauses) app.use('/api/agents', agentRoutes({ agents: deps.agentPauses, logger: deps.logger, now: deps.now ?? (() => new Date()) }));
  app.use('/api', overviewRoutes({ readModel: deps.readModel, inspector, alerts: deps.alerts, now: deps.now ?? (() => new Date()) }));
  app.use('/api', apiNotFound);
  app.get('/', (_req, res) => {
    const principal = principalOf(res);
    const nonce = randomBytes(16).toString('base64');
    res
      .set('content-security-policy', pageSecurityPolicy(nonce))
      .set('cache-control', 'no-store')
      .type('html')
      .send(renderDashboardPage({ nonce, instanceId: deps.instanceId, queuePrefix: deps.queuePrefix, ...(principal ? { signedInAs: principal.id } : {}) }));
  });
  app.use(apiErrorHandler(deps.logger));
  return app;
}

/** A bull-board over every queue; read-only boards refuse retries, cleans and deletes (405). */
function bullBoard(queues: readonly Queue[], readOnlyMode: boolean): ReturnType<ExpressAdapter['getRouter']> {
  const board = new ExpressAdapter();
  board.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: queues.map((q) => new BullMQAdapter(q, { readOnlyMode })),
    serverAdapter: board,
    options: { uiConfig: { boardTitle: readOnlyMode ? 'sas queues (read-only)' : 'sas queues' } },
  });
  return board.getRouter();
}
