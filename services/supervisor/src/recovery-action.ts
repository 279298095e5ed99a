import type { ProcessDocument } from '@sas/contracts';

/**
 * What a recovery did, read from the process after it: `retry` (below the failure threshold, back
 * to Pending), or the workflow's threshold policy: `wait` (an extended wait), `compensate`
 * (undo pending) or `error` (given up to an operator).
 */
export type RecoveryAction = 'retry' | 'wait' | 'compensate' | 'error';

/**
 * Classifies a recovery from the process document it produced. A retry keeps a failure count
 * above zero; a threshold policy that goes on resets it, `compensate` by also switching the mode.
 */
export function recoveryAction(after: Pick<ProcessDocument, 'state' | 'mode' | 'failureCount'>, modeBefore: ProcessDocument['mode']): RecoveryAction {
  if (after.state === 'Error') return 'error';
  if (after.failureCount > 0) return 'retry';
  return after.mode === 'compensate' && modeBefore === 'forward' ? 'compensate' : 'wait';
}
