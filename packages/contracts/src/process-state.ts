import { z } from 'zod';

/**
 * Lifecycle of a process (a task). `Pending` waits for a scheduler (in either direction);
 * `Processing` and `Compensating` are held by a scheduler until `completeBy`.
 */
export const ProcessState = z.enum([
  'Pending',
  'Processing',
  'Processed',
  'Error',
  'Compensating',
  'Compensated',
  'Canceled',
]);
export type ProcessState = z.infer<typeof ProcessState>;

/** States from which nothing moves without an operator. */
export const TERMINAL_STATES: readonly ProcessState[] = ['Processed', 'Compensated', 'Canceled'];

/** Whether a process in this state will not change again on its own. `Error` waits for an operator. */
export function isTerminal(state: ProcessState): boolean {
  return TERMINAL_STATES.includes(state);
}

/** Direction a process runs in: forward through its steps, or backward through their compensations. */
export const ProcessMode = z.enum(['forward', 'compensate']);
export type ProcessMode = z.infer<typeof ProcessMode>;

/** State of one step. */
export const StepState = z.enum([
  'NotStarted',
  'Running',
  'Completed',
  'Failed',
  'Compensating',
  'Compensated',
  'Skipped',
]);
export type StepState = z.infer<typeof StepState>;
