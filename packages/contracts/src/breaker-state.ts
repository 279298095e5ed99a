import { z } from 'zod';

/** Circuit breaker state of one agent instance, written to `agent_breakers` for the dashboard. */
export const BreakerStateDocument = z.object({
  /** `<agent>/<instanceId>` */
  _id: z.string(),
  agent: z.string(),
  instanceId: z.string(),
  state: z.enum(['closed', 'open', 'halfOpen']),
  /** When an open breaker next lets a trial call through. */
  retryAt: z.date().nullable(),
  updatedAt: z.date(),
  /** Dropped by the TTL index when the agent stops reporting. */
  deleteTime: z.date(),
});
export type BreakerStateDocument = z.infer<typeof BreakerStateDocument>;
