import { z } from 'zod';
import { EpochMs } from './common';

/** A message that could not be handled, kept on the `dead-letter` queue with why. */
export const DeadLetterEntry = z.object({
  schemaVersion: z.literal(1),
  /** Queue the message arrived on. */
  queue: z.string(),
  /** Service instance that rejected it. */
  rejectedBy: z.string(),
  reason: z.string(),
  /** Flattened validation issues, when validation failed. */
  issues: z.array(z.string()).optional(),
  /** The message as received. */
  original: z.unknown(),
  at: EpochMs,
});
export type DeadLetterEntry = z.infer<typeof DeadLetterEntry>;
