import { z } from 'zod';
import { parseRedisUrl, queuePrefixProblem } from '@sas/contracts';
import { LivenessConfig } from './liveness-config';
import { TracingConfig } from './tracing-config';

/** Environment fields every service shares. Spread into a service's own schema. */
export const CommonConfig = {
  /**
   * Redis for BullMQ queues: one Redis (`redis://`, `rediss://` for TLS) or a Redis Cluster
   * (`redis-cluster://[user:password@]host:port,host:port,...`, `rediss-cluster://` for TLS); see `parseRedisUrl`.
   */
  REDIS_URL: z
    .string()
    .superRefine((url, ctx) => {
      try {
        parseRedisUrl(url);
      } catch (e) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: `REDIS_URL: ${(e as Error).message}` });
      }
    })
    .default('redis://127.0.0.1:6379'),
  /** MongoDB state store. The local launcher and tests set it to the resolved server. */
  MONGO_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'MONGO_URL must be a mongodb:// URL; set it, or run through the launcher')
    .default('mongodb://127.0.0.1:27017/?directConnection=true'),
  /** Database name inside MongoDB. */
  MONGO_DB: z.string().min(1).default('sas'),
  /** Prefix for every BullMQ key; tests give each run its own. No hash tag: each queue adds its own (`queueKeyPrefix`). */
  QUEUE_PREFIX: z
    .string()
    .superRefine((prefix, ctx) => {
      const problem = queuePrefixProblem(prefix);
      if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
    })
    .default('sas'),
  /** pino level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Port of /healthz /readyz /metrics; 0 picks a free port, -1 disables. */
  PROBE_PORT: z.coerce.number().int().min(-1).max(65535).default(-1),
  /**
   * Address the probe server listens on: loopback by default, since `/metrics` tells anyone who
   * reaches it about the system; `0.0.0.0` in a container, where kubelet and Prometheus call the pod's address.
   */
  PROBE_HOST: z.string().min(1).default('127.0.0.1'),
  /** Name of this instance in logs, locks and history; defaults to `<service>-<host>-<pid>`. */
  INSTANCE_ID: z.string().min(1).optional(),
  ...TracingConfig,
  ...LivenessConfig,
};
