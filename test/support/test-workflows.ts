import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { orderFulfilmentV1, type WorkflowDefinition } from '@sas/workflow';

/** Complete-by of every step in the test workflows: short, so recoveries happen within seconds. */
export const TEST_COMPLETE_BY_MS = 1500;

const steps = orderFulfilmentV1.steps.map((s) => ({
  ...s,
  completeByMs: TEST_COMPLETE_BY_MS,
  retry: { maxAttempts: 4, initialBackoffMs: 30, maxBackoffMs: 300, multiplier: 2, jitter: 0.5 },
}));

/** `fast-fulfilment`: order-fulfilment with short complete-by; threshold 3, then compensate. */
export const fastFulfilment: WorkflowDefinition = { ...orderFulfilmentV1, name: 'fast-fulfilment', steps };

/** `fast-manual`: threshold 2, then Error for an operator. */
const fastManual: WorkflowDefinition = {
  ...orderFulfilmentV1,
  name: 'fast-manual',
  steps,
  failureThreshold: 2,
  onThreshold: { policy: 'error' },
};

/**
 * `hold-fulfilment`: a step whose remote hangs is recovered and re-sent every couple of seconds
 * and never reaches its threshold, so the process stays unfinished until an operator acts (the
 * browser test cancels it). The short complete-by keeps the undo after a cancel quick.
 */
const holdFulfilment: WorkflowDefinition = {
  ...orderFulfilmentV1,
  name: 'hold-fulfilment',
  steps: steps.map((s) => ({ ...s, completeByMs: 2000 })),
  failureThreshold: 1_000_000,
  onThreshold: { policy: 'error' },
};

/**
 * `steady-fulfilment`: fast-fulfilment with a complete-by long enough that the queueing delays of a
 * loaded 2-core machine do not pass it three times in a row, so the injected faults, not the
 * machine's load, decide which orders compensate. The 300-order load run uses it.
 */
export const steadyFulfilment: WorkflowDefinition = {
  ...orderFulfilmentV1,
  name: 'steady-fulfilment',
  steps: steps.map((s) => ({ ...s, completeByMs: 6000 })),
};

/** Writes the test workflows to a file for WORKFLOWS_FILE and returns its path. */
function writeTestWorkflows(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sas-workflows-'));
  const file = join(dir, 'workflows.json');
  writeFileSync(file, JSON.stringify([fastFulfilment, fastManual, holdFulfilment, steadyFulfilment], null, 2));
  return file;
}

/** Environment for services in failure tests: test workflows, fast sweeps and polls, a quick breaker. */
export function fastRoleEnv(): Partial<Record<string, NodeJS.ProcessEnv>> {
  const WORKFLOWS_FILE = writeTestWorkflows();
  return {
    submission: { WORKFLOWS_FILE },
    scheduler: { WORKFLOWS_FILE, POLL_INTERVAL_MS: '300' },
    supervisor: { WORKFLOWS_FILE, SWEEP_INTERVAL_MS: '200' },
    agent: { BREAKER_RESET_TIMEOUT_MS: '1000', BREAKER_REPORT_INTERVAL_MS: '500' },
  };
}
