import type { ProcessMode } from '@sas/contracts';

/**
 * The key a remote service deduplicates a step by. It depends only on the process, the step and
 * the direction, never on the attempt, so every retry and every recovery repeats the same key.
 */
export function idempotencyKey(processId: string, step: string, mode: ProcessMode): string {
  return mode === 'forward' ? `${processId}/${step}` : `${processId}/${step}/compensate`;
}
