import { z } from 'zod';

/** A hint on `scheduler.ready` that a process may be claimable; schedulers also poll. */
export const SchedulerWakeup = z.object({
  schemaVersion: z.literal(1),
  processId: z.string().optional(),
  reason: z.string(),
});
export type SchedulerWakeup = z.infer<typeof SchedulerWakeup>;
