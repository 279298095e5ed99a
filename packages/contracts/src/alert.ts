import { z } from 'zod';
import { EpochMs } from './common';

/** An operator alert, sent to the `alerts` queue and the log. */
export const Alert = z.object({
  schemaVersion: z.literal(1),
  kind: z.enum(['ThresholdReached', 'CompensationFailed', 'DeadLetter', 'ProcessError']),
  processId: z.string().optional(),
  orderId: z.string().optional(),
  step: z.string().optional(),
  failureCount: z.number().int().nonnegative().optional(),
  reason: z.string(),
  at: EpochMs,
});
export type Alert = z.infer<typeof Alert>;
