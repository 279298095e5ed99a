import { Router } from 'express';
import type { Registry } from 'prom-client';

/**
 * `/metrics` on the dashboard's own port, open like `/healthz` and `/readyz`: Prometheus scrapes
 * without a dashboard token. It shows counts, never a process's payload.
 */
export function metricsRoute(registry: Registry): Router {
  const router = Router();
  router.get('/metrics', async (_req, res) => {
    try {
      const text = await registry.metrics();
      res.type(registry.contentType).send(text);
    } catch (e) {
      res.status(500).type('text/plain').send(`metrics unavailable: ${e instanceof Error ? e.message : String(e)}\n`);
    }
  });
  return router;
}
