import { Router } from 'express';
import type { ProcessReadModel } from './process-read-model';

/** What {@link healthRoutes} needs. */
export interface HealthRoutesDeps {
  readModel: ProcessReadModel;
  /** Whether the Redis connection is up. */
  redisReady: () => boolean;
  /** How long `/readyz` waits for MongoDB before calling it unreachable. @default 2000 */
  pingTimeoutMs?: number;
}

/**
 * `/healthz` (the process answers) and `/readyz` (MongoDB and Redis reachable) on the dashboard's
 * own port, so one port serves people and probes alike.
 */
export function healthRoutes(deps: HealthRoutesDeps): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.type('text/plain').send('ok\n');
  });
  router.get('/readyz', async (_req, res) => {
    const [mongo, redis] = [await mongoReachable(deps), deps.redisReady()];
    res.status(mongo && redis ? 200 : 503).json({ ready: mongo && redis, mongo, redis });
  });
  return router;
}

async function mongoReachable(deps: HealthRoutesDeps): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), deps.pingTimeoutMs ?? 2000);
  });
  try {
    return await Promise.race([deps.readModel.ping().then(() => true, () => false), late]);
  } finally {
    clearTimeout(timer);
  }
}
