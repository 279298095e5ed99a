import { QueueNames, type AgentRequest, type ProcessDocument } from '@sas/contracts';
import { createProcess, transition, type ProcessInput, type WorkflowDefinition } from '@sas/workflow';
import { renderStepLines } from './step-lines';

// Documents made by the state machine itself, so the lines show what a real process holds.

const T0 = Date.UTC(2030, 0, 1, 12);
const iso = (ms: number): string => new Date(ms).toISOString();
const retry = { maxAttempts: 3, initialBackoffMs: 50, maxBackoffMs: 500, multiplier: 2, jitter: 0.5 };
const workflow: WorkflowDefinition = {
  name: 'approve-then-ship',
  version: 1,
  steps: [
    { name: 'reserve', agent: 'inventory', operation: 'reserve', compensation: 'release', completeByMs: 5_000, retry },
    { name: 'cool-off', wait: { ms: 3_000 } },
    { name: 'approval', signal: { name: 'confirm', timeoutMs: 300_000, onTimeout: 'compensate' } },
    { name: 'ship', agent: 'shipping', operation: 'create', compensation: 'cancel', completeByMs: 5_000, retry },
  ],
  failureThreshold: 3,
  onThreshold: { policy: 'compensate' },
  onPermanentFailure: 'compensate',
  retentionMs: 86_400_000,
};

/** Applies `input` at `now` and returns the next document and what it sent to agents. */
function apply(doc: ProcessDocument, input: ProcessInput, now: number): { doc: ProcessDocument; sent: AgentRequest[] } {
  const result = transition(doc, input, { workflow, now, who: 'scheduler-1', replyQueue: QueueNames.schedulerReplies });
  if (!result.applied) throw new Error(`not applied: ${result.reason}`);
  return { doc: result.next, sent: result.actions.flatMap((a) => (a.type === 'dispatch' ? [a.request] : [])) };
}

function replyOk(doc: ProcessDocument, request: AgentRequest, at: number): ProcessDocument {
  const { processId, step, stepIndex, mode, attempt, agent } = request;
  return apply(doc, { type: 'reply', reply: { schemaVersion: 1, processId, step, stepIndex, mode, attempt, agent, agentInstance: `${agent}-1`, at, outcome: 'ok', result: {} } }, at).doc;
}

/** The process with its reserve step done and its wait come up at T0 + 100. */
function waiting(): ProcessDocument {
  const created = createProcess({ processId: 'p-1', orderId: 'o-1', payload: {}, replyTo: null, workflow, now: T0 });
  const claimed = apply(created, { type: 'claim' }, T0);
  return replyOk(claimed.doc, claimed.sent[0]!, T0 + 100);
}

describe('the step lines of sas status', () => {
  it("say what a waiting wait step waits for, and a task's agent and operation", () => {
    expect(renderStepLines(waiting())).toEqual([
      `    reserve              Completed    inventory.reserve                    dispatches 1`,
      `  > cool-off             Running      wait until ${iso(T0 + 3_100)}  dispatches 0`,
      `    approval             NotStarted   signal 'confirm'                     dispatches 0`,
      `    ship                 NotStarted   shipping.create                      dispatches 0`,
    ]);
  });

  it('give a waiting signal step its name and deadline, and a fired wait its instant', () => {
    const fired = apply(waiting(), { type: 'claim' }, T0 + 3_100).doc;
    expect(renderStepLines(fired).slice(1, 3)).toEqual([
      `    cool-off             Completed    wait until ${iso(T0 + 3_100)}                    dispatches 0`,
      `  > approval             Running      signal 'confirm' (times out ${iso(T0 + 303_100)})  dispatches 0`,
    ]);
  });

  it('drop the deadline of a signal step that no longer waits: the process was canceled', () => {
    const fired = apply(waiting(), { type: 'claim' }, T0 + 3_100).doc;
    const canceled = apply(fired, { type: 'cancel', by: 'op' }, T0 + 4_000).doc;
    const undoing = apply(canceled, { type: 'claim' }, T0 + 4_000);
    const done = replyOk(undoing.doc, undoing.sent[0]!, T0 + 4_100);
    expect(done.state).toBe('Canceled');
    expect(renderStepLines(done)[2]).toBe(`    approval             Compensated  signal 'confirm'                     dispatches 0`);
    // A document written before decision 127 left the step Running: it does not wait either.
    const older = { ...done, steps: done.steps.map((s) => (s.name === 'approval' ? { ...s, state: 'Running' as const } : s)) };
    expect(renderStepLines(older)[2]).toBe(`    approval             Stopped      signal 'confirm'                     dispatches 0`);
  });

  it('show a task whose complete-by passed without an answer in a stopped process as InDoubt, not Running', () => {
    const manual: WorkflowDefinition = { ...workflow, onThreshold: { policy: 'error' } };
    let doc = createProcess({ processId: 'p-2', orderId: 'o-2', payload: {}, replyTo: null, workflow: manual, now: T0 });
    const run = (input: ProcessInput, now: number): void => {
      const result = transition(doc, input, { workflow: manual, now, who: 'scheduler-1', replyQueue: QueueNames.schedulerReplies });
      if (!result.applied) throw new Error(`not applied: ${result.reason}`);
      doc = result.next;
    };
    for (let i = 0; i < 3; i++) {
      run({ type: 'claim' }, T0 + i * 10_000);
      run({ type: 'expire' }, T0 + i * 10_000 + 5_000);
    }
    expect(doc.state).toBe('Error');
    expect(doc.steps[0]!.state).toBe('Running');
    expect(renderStepLines(doc)[0]).toBe(`  > reserve              InDoubt      inventory.reserve  dispatches 3`);
  });
});
