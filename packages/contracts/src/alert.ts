import { z } from 'zod';
import { EpochMs } from './common';

/** An operator alert, sent to the `alerts` queue and the log. */
export const Alert = z.object({
  schemaVersion: z.literal(1),
  /**
   * `StepResultRefused`: a step took effect but its result could not be carried (too large or too
   * deep), so the order is being undone. Added after the others: a dashboard built before it
   * dead-letters such an alert (kept, not lost), so deploy dashboards before schedulers.
   */
  /**
   * `OperationUnserved`: at a scheduler's start, a step operation or compensation that no live agent
   * serves (issue 23); no process is named. Added later still, with the same deploy order.
   */
  kind: z.enum(['ThresholdReached', 'CompensationFailed', 'DeadLetter', 'ProcessError', 'StepResultRefused', 'OperationUnserved']),
  processId: z.string().optional(),
  orderId: z.string().optional(),
  step: z.string().optional(),
  failureCount: z.number().int().nonnegative().optional(),
  reason: z.string(),
  at: EpochMs,
});
export type Alert = z.infer<typeof Alert>;
