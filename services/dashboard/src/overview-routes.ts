import { Router } from 'express';
import { QueueNames } from '@sas/contracts';
import { alertEntry } from './alert-record';
import type { AlertStore } from './alert-store';
import { sendError } from './api-errors';
import { LimitQuery } from './limit-query';
import { parseInput } from './parse-input';
import type { ProcessReadModel } from './process-read-model';
import type { QueueInspector } from './queue-inspector';
import { shapeSummary } from './summary';
import { noQuery } from './no-query';

/** What {@link overviewRoutes} needs. */
export interface OverviewRoutesDeps {
  readModel: ProcessReadModel;
  inspector: QueueInspector;
  /** The alerts dashboards consumed from the `alerts` queue. */
  alerts: Pick<AlertStore, 'newest'>;
  /** The current time for the summary's `at`; injected so tests can fix it. */
  now: () => Date;
}

/**
 * The operator's overview: `/api/summary`, `/api/breakers`, `/api/dead-letters` and `/api/alerts`.
 * Queues are read with BullMQ's Queue API only, never consumed; alerts come from the `alerts`
 * collection, where the dashboard's alert consumer stores them.
 */
export function overviewRoutes(deps: OverviewRoutesDeps): Router {
  const router = Router();

  router.get('/summary', noQuery, async (_req, res) => {
    const [byState, byWorkflow, queues, deadLetters, breakers] = await Promise.all([
      deps.readModel.countBy('state'),
      deps.readModel.countBy('workflow'),
      deps.inspector.counts(),
      deps.inspector.total(QueueNames.deadLetter),
      deps.readModel.breakers(),
    ]);
    res.json(shapeSummary({ byState, byWorkflow, queues, deadLetters, breakers, at: deps.now() }));
  });

  router.get('/breakers', noQuery, async (_req, res) => {
    res.json({ breakers: await deps.readModel.breakers() });
  });

  router.get('/dead-letters', async (req, res) => {
    const query = parseInput(LimitQuery, req.query, 'query');
    if (!query.ok) return sendError(res, 400, query.error);
    res.json({ deadLetters: await deps.inspector.newest(QueueNames.deadLetter, query.data.limit) });
  });

  router.get('/alerts', async (req, res) => {
    const query = parseInput(LimitQuery, req.query, 'query');
    if (!query.ok) return sendError(res, 400, query.error);
    res.json({ alerts: (await deps.alerts.newest(query.data.limit)).map(alertEntry) });
  });

  return router;
}
