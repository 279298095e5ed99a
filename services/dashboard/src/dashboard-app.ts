import { randomBytes } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { AlertStore } from './alert-store';
import { apiErrorHandler, apiNotFound } from './api-errors';
import type { CommandSender } from './command-sender';
import { pageSecurityPolicy, renderDashboardPage } from './dashboard-page';
import { healthRoutes } from './health-routes';
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
  logger: Logger;
  /** Whether the Redis connection is up, for `/readyz`. */
  redisReady: () => boolean;
  /** Shown in the page header. */
  instanceId: string;
  queuePrefix: string;
  /** @default () => new Date() */
  now?: () => Date;
}

/** Where bull-board is mounted. */
export const BULL_BOARD_PATH = '/queues';

/**
 * Builds the operator surface: bull-board at `/queues` (not read-only: operators retry failed jobs
 * there), the JSON API under `/api`, the page at `/`, and `/healthz` `/readyz`. It only reads the
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

  const board = new ExpressAdapter();
  board.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: deps.queues.map((q) => new BullMQAdapter(q)),
    serverAdapter: board,
    options: { uiConfig: { boardTitle: 'sas queues' } },
  });

  app.use(healthRoutes({ readModel: deps.readModel, redisReady: deps.redisReady }));
  app.use(sameOriginGuard);
  app.use(BULL_BOARD_PATH, board.getRouter());
  app.use('/api', express.json({ limit: '16kb' }));
  app.use('/api/processes', processRoutes({ readModel: deps.readModel, commands: deps.commands, logger: deps.logger }));
  app.use('/api', overviewRoutes({ readModel: deps.readModel, inspector, alerts: deps.alerts, now: deps.now ?? (() => new Date()) }));
  app.use('/api', apiNotFound);
  app.get('/', (_req, res) => {
    const nonce = randomBytes(16).toString('base64');
    res
      .set('content-security-policy', pageSecurityPolicy(nonce))
      .set('cache-control', 'no-store')
      .type('html')
      .send(renderDashboardPage({ nonce, instanceId: deps.instanceId, queuePrefix: deps.queuePrefix }));
  });
  app.use(apiErrorHandler(deps.logger));
  return app;
}
