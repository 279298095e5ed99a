import type { AgentReply, ProcessDocument } from '@sas/contracts';

/** One applied reply, as the step duration histogram records it. */
export interface StepObservation {
  workflow: string;
  step: string;
  agent: string;
  mode: AgentReply['mode'];
  outcome: AgentReply['outcome'];
  /** From the step's first dispatch in its mode (`startedAt`) to the reply being applied. */
  seconds: number;
}

/**
 * What the histogram records for a reply applied to `process` (the document after the reply),
 * or null when the step has no start to measure from: a reply that sent the step into its own
 * compensation resets `startedAt`. Retries and recoveries of the step are inside the duration:
 * `startedAt` is the first dispatch, so this is how long the step took, not one attempt.
 */
export function stepObservation(reply: AgentReply, process: ProcessDocument, nowMs: number): StepObservation | null {
  const step = process.steps[reply.stepIndex];
  if (!step?.startedAt || step.name !== reply.step) return null;
  return {
    workflow: process.workflow,
    step: step.name,
    agent: reply.agent,
    mode: reply.mode,
    outcome: reply.outcome,
    seconds: Math.max(0, nowMs - step.startedAt.getTime()) / 1000,
  };
}
