import type { SignalInput } from '../apply-signal';
import type { WorkflowDefinition, WorkflowEntry } from '../workflow-definition';
import { ProcessRun } from './process-run';
import { ok } from './reply-body';

// A workflow with a signal step and runs of it, shared by the signal step and apply-signal tests.

const retry = { maxAttempts: 3, initialBackoffMs: 50, maxBackoffMs: 500, multiplier: 2, jitter: 0.5 };
const task = (name: string, agent: string): WorkflowEntry => ({ name, agent, operation: 'do', compensation: 'undo', completeByMs: 5_000, retry });
export const HOUR = 3_600_000;

/** reserve (a task), then `approval` waiting for the signal `approved` for an hour, then ship (a task). */
export function approvalWorkflow(onTimeout: 'compensate' | 'error' | 'continue' = 'compensate'): WorkflowDefinition {
  return {
    name: 'approval',
    version: 1,
    steps: [task('reserve', 'inventory'), { name: 'approval', signal: { name: 'approved', timeoutMs: HOUR, onTimeout } }, task('ship', 'shipping')],
    failureThreshold: 3,
    onThreshold: { policy: 'compensate' },
    onPermanentFailure: 'compensate',
    retentionMs: 86_400_000,
  };
}

/** A run whose first task has just completed, so the signal step is waiting. */
export function waitingForSignal(onTimeout?: 'compensate' | 'error' | 'continue'): ProcessRun {
  const run = new ProcessRun(approvalWorkflow(onTimeout));
  run.apply({ type: 'claim' });
  run.now += 100;
  run.reply(ok({ reservationId: 'r-1' }));
  return run;
}

export const signal = (name = 'approved', signalId = 's-1', data: Record<string, unknown> | null = { by: 'ann' }): SignalInput => ({ type: 'signal', signalId, name, data, by: 'shop' });
export const dispatched = (run: ProcessRun): string[] => run.actions.flatMap((a) => (a.type === 'dispatch' ? [`${a.request.step}/${a.request.mode}`] : []));

