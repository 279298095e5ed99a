import { z } from 'zod';
import { CommonConfig } from '@sas/runtime';

/** Environment of the submission service. */
export const SubmissionConfig = z.object({
  ...CommonConfig,
  /** JSON file with extra workflow definitions (an array); the built-in ones are always there. */
  WORKFLOWS_FILE: z.string().optional(),
  /** Submissions handled at once. */
  CONCURRENCY: z.coerce.number().int().positive().default(16),
});
export type SubmissionConfig = z.infer<typeof SubmissionConfig>;
