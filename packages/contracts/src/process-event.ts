import { z } from 'zod';
import { ProcessState } from './process-state';

/** One transition in the append-only `process_events` collection. */
export const ProcessEventEntry = z.object({
  processId: z.string(),
  orderId: z.string(),
  /** Service instance that made the transition. */
  who: z.string(),
  at: z.date(),
  from: ProcessState.nullable(),
  to: ProcessState,
  /** Human-readable cause: "claimed", "reply ok from payment-1", "complete-by passed", ... */
  why: z.string(),
  attempt: z.number().int().nonnegative(),
  step: z.string().nullable(),
  deleteTime: z.date().nullable(),
});
export type ProcessEventEntry = z.infer<typeof ProcessEventEntry>;
