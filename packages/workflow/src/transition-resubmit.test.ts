import {
  QueueNames,
  type AgentReply,
  type AgentRequest,
  type JsonObject,
  type ProcessDocument,
} from '@sas/contracts';
import type { Action } from './action';
import { createProcess } from './create-process';
import { orderFulfilmentManualV1, orderFulfilmentV1 } from './order-fulfilment';
import type { ProcessInput } from './process-input';
import { transition } from './transition';
import type { TransitionResult } from './transition-result';
import type { WorkflowDefinition } from './workflow-definition';

// --- harness (kept in each test file on purpose: test helpers must not reach the package build) ---

const T0 = Date.UTC(2030, 0, 1);
const ORDER = { processId: 'p-1', orderId: 'o-1', payload: { sku: 'sku-1' } };
const REPLIES = QueueNames.schedulerReplies;
type Applied = Extract<TransitionResult, { applied: true }>;
type ReplyBody =
  | { outcome: 'ok'; result: JsonObject }
  | { outcome: 'error'; errorKind: 'permanent' | 'transient'; message: string }
  | { outcome: 'parked'; retryAfterMs: number; reason: string };

/** One process driven through the state machine the way the services drive it, with its own clock. */
class Run {
  doc: ProcessDocument;
  now = T0;
  actions: Action[] = [];

  constructor(
    readonly workflow: WorkflowDefinition = orderFulfilmentV1,
    replyTo: string | null = 'app.status',
  ) {
    this.doc = createProcess({ ...ORDER, replyTo, workflow, now: T0 });
  }

  try(input: ProcessInput, who = 'scheduler-1'): TransitionResult {
    return transition(this.doc, input, { workflow: this.workflow, now: this.now, who, replyQueue: REPLIES });
  }

  apply(input: ProcessInput, who?: string): Applied {
    const result = this.try(input, who);
    if (!result.applied) throw new Error(`${input.type} did not apply: ${result.reason}`);
    this.doc = result.next;
    this.actions = result.actions;
    return result;
  }

  request(): AgentRequest {
    const sent = this.actions.flatMap((a) => (a.type === 'dispatch' ? [a.request] : []));
    if (sent.length !== 1 || !sent[0]) throw new Error(`expected one dispatch, got ${sent.length}`);
    return sent[0];
  }

  reply(body: ReplyBody, request = this.request(), who?: string): Applied {
    return this.apply({ type: 'reply', reply: answer(request, body, this.now) }, who);
  }

  expire(): Applied {
    if (!this.doc.completeBy) throw new Error(`nothing is held: process is ${this.doc.state}`);
    this.now = this.doc.completeBy.getTime();
    return this.apply({ type: 'expire' }, 'supervisor-1');
  }
}

function answer(request: AgentRequest, body: ReplyBody, at: number): AgentReply {
  const { processId, step, stepIndex, mode, attempt, agent } = request;
  const fence = { schemaVersion: 1 as const, processId, step, stepIndex, mode, attempt, agent };
  return { ...fence, agentInstance: `${agent}-1`, at, ...body };
}

const refused = (message: string): ReplyBody => ({ outcome: 'error', errorKind: 'permanent', message });
const ok = (result: JsonObject = {}): ReplyBody => ({ outcome: 'ok', result });
const statuses = (actions: readonly Action[]): string[] =>
  actions.flatMap((a) => (a.type === 'status' ? [a.event.status] : []));

// --- tests ---

/** Asserts an input is refused with the given reason and that the process is exactly as before. */
function expectIgnored(run: Run, input: ProcessInput, reason: string): void {
  const before = structuredClone(run.doc);
  expect(run.try(input)).toEqual({ applied: false, reason });
  expect(run.doc).toEqual(before);
}

/** A process whose first step completed and whose second step (charge-payment) is in flight. */
function secondStepInFlight(workflow: WorkflowDefinition = orderFulfilmentV1): Run {
  const run = new Run(workflow);
  run.apply({ type: 'claim' });
  run.reply(ok({ reservationId: 'r-1' }));
  return run;
}

describe('when an operator resubmits a process stopped by a permanent refusal', () => {
  const strict: WorkflowDefinition = { ...orderFulfilmentV1, name: 'strict', onPermanentFailure: 'error' };

  it('restarts the failed step with a clean count and the process completes', () => {
    const run = secondStepInFlight(strict);
    const failed = run.request();
    run.reply(refused('card declined'));
    run.now += 3_600_000;
    const { next, actions } = run.apply({ type: 'resubmit', by: 'op' }, 'dashboard-1');
    expect(next).toMatchObject({
      state: 'Pending',
      mode: 'forward',
      failureCount: 0,
      waits: 0,
      reason: 'resubmitted by op',
    });
    expect(next.notBefore).toEqual(new Date(run.now));
    expect(next.steps[1]).toMatchObject({ state: 'NotStarted', error: null, finishedAt: null });
    expect(actions).toEqual([{ type: 'wake', atMs: run.now }]);
    const claimed = run.apply({ type: 'claim' });
    expect(statuses(claimed.actions)).toEqual([]);
    expect(run.request()).toEqual({ ...failed, attempt: failed.attempt + 2, completeBy: run.now + 5000 });
    run.reply(ok());
    const done = run.reply(ok());
    expect(done.next.state).toBe('Processed');
    expect(statuses(done.actions)).toEqual(['StepCompleted', 'Processed']);
  });
});

describe('when an operator resubmits a process stopped at the threshold', () => {
  it('retries the in-doubt step with fresh counts and the process completes', () => {
    const run = new Run(orderFulfilmentManualV1);
    run.apply({ type: 'claim' });
    for (let i = 0; i < 3; i++) {
      if (i > 0) run.apply({ type: 'claim' });
      run.expire();
    }
    expect(run.doc).toMatchObject({ state: 'Error', failureCount: 3 });
    const { next } = run.apply({ type: 'resubmit', by: 'op' });
    expect(next).toMatchObject({ state: 'Pending', failureCount: 0, deleteTime: null });
    expect(next.steps[0]?.state).toBe('Running');
    run.apply({ type: 'claim' });
    expect(run.request()).toMatchObject({
      step: 'reserve-inventory',
      idempotencyKey: 'p-1/reserve-inventory',
    });
    run.reply(ok());
    run.reply(ok());
    expect(run.reply(ok()).next.state).toBe('Processed');
  });
});

describe('when an operator resubmits a process that is not in Error', () => {
  it('refuses and names the state it is in', () => {
    const run = new Run();
    expectIgnored(
      run,
      { type: 'resubmit', by: 'op' },
      'only Error processes can be resubmitted; this one is Pending',
    );
    run.apply({ type: 'claim' });
    expectIgnored(
      run,
      { type: 'resubmit', by: 'op' },
      'only Error processes can be resubmitted; this one is Processing',
    );
  });
});
