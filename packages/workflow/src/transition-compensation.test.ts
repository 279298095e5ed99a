import {
  QueueNames,
  type AgentReply,
  type AgentRequest,
  type Alert,
  type JsonObject,
  type ProcessDocument,
} from '@sas/contracts';
import type { Action } from './action';
import { createProcess } from './create-process';
import { orderFulfilmentV1 } from './order-fulfilment';
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

const ok = (result: JsonObject = {}): ReplyBody => ({ outcome: 'ok', result });
const statuses = (actions: readonly Action[]): string[] =>
  actions.flatMap((a) => (a.type === 'status' ? [a.event.status] : []));
const alerts = (actions: readonly Action[]): Alert[] =>
  actions.flatMap((a) => (a.type === 'alert' ? [a.alert] : []));
const refused = (message: string): ReplyBody => ({ outcome: 'error', errorKind: 'permanent', message });

// --- tests ---

/** A process whose first step completed and whose second step (charge-payment) is in flight. */
function secondStepInFlight(workflow: WorkflowDefinition = orderFulfilmentV1): Run {
  const run = new Run(workflow);
  run.apply({ type: 'claim' });
  run.reply(ok({ reservationId: 'r-1' }));
  return run;
}

describe('when a step is refused permanently', () => {
  it('marks it Failed, tells the application and undoes only the steps before it', () => {
    const run = secondStepInFlight();
    run.now += 50;
    const { next, actions } = run.reply(refused('card declined'));
    expect(next).toMatchObject({
      state: 'Compensating',
      mode: 'compensate',
      currentStep: 0,
      failureCount: 0,
    });
    expect(next.reason).toBe('charge-payment: card declined');
    expect(next.steps[1]).toMatchObject({
      state: 'Failed',
      error: 'card declined',
      finishedAt: new Date(run.now),
    });
    expect(next.steps[1]?.idempotencyKey).toBe('p-1/charge-payment');
    const events = actions.flatMap((a) => (a.type === 'status' ? [a.event] : []));
    expect(events).toEqual([
      expect.objectContaining({ status: 'Failed', step: 'charge-payment', reason: 'card declined' }),
    ]);
    expect(run.request()).toMatchObject({
      step: 'reserve-inventory',
      operation: 'release',
      mode: 'compensate',
    });
  });

  it('ends Compensated, giving the refusal as the reason, once the earlier steps are undone', () => {
    const run = secondStepInFlight();
    run.reply(refused('card declined'));
    const { next, actions } = run.reply(ok());
    expect(next.state).toBe('Compensated');
    expect(next.steps.map((s) => s.state)).toEqual(['Compensated', 'Failed', 'NotStarted']);
    expect(next.deleteTime).toEqual(new Date(run.now + orderFulfilmentV1.retentionMs));
    const events = actions.flatMap((a) => (a.type === 'status' ? [a.event] : []));
    expect(events).toEqual([
      expect.objectContaining({ status: 'Compensated', reason: 'charge-payment: card declined' }),
    ]);
  });

  it('ends Compensated at once when nothing before it needs undoing', () => {
    const run = new Run();
    run.apply({ type: 'claim' });
    const { next, actions } = run.reply(refused('out of stock'));
    expect(next).toMatchObject({ state: 'Compensated', lockedBy: null, completeBy: null });
    expect(actions.filter((a) => a.type === 'dispatch')).toEqual([]);
    expect(statuses(actions)).toEqual(['Failed', 'Compensated']);
  });

  it('skips completed steps that have nothing to undo', () => {
    const steps = orderFulfilmentV1.steps.map((s, i) => (i === 0 ? { ...s, compensation: null } : s));
    const run = new Run({ ...orderFulfilmentV1, name: 'partly-undoable', steps });
    run.apply({ type: 'claim' });
    run.reply(ok());
    run.reply(ok({ chargeId: 'c-1' }));
    run.reply(refused('address invalid'));
    expect(run.request()).toMatchObject({ step: 'charge-payment', operation: 'refund' });
    const { next } = run.reply(ok());
    expect(next.state).toBe('Compensated');
    expect(next.steps.map((s) => s.state)).toEqual(['Completed', 'Compensated', 'Failed']);
  });
});

describe('when a step is refused permanently and the workflow stops on refusals', () => {
  const strict: WorkflowDefinition = { ...orderFulfilmentV1, name: 'strict', onPermanentFailure: 'error' };

  it('stops in Error, alerts an operator and undoes nothing', () => {
    const run = secondStepInFlight(strict);
    const { next, actions } = run.reply(refused('card declined'));
    expect(next).toMatchObject({
      state: 'Error',
      mode: 'forward',
      lockedBy: null,
      completeBy: null,
      deleteTime: null,
    });
    expect(next.steps.map((s) => s.state)).toEqual(['Completed', 'Failed', 'NotStarted']);
    expect(alerts(actions)).toEqual([
      expect.objectContaining({
        kind: 'ProcessError',
        step: 'charge-payment',
        reason: 'charge-payment refused: card declined; resubmit or cancel the process',
      }),
    ]);
    expect(statuses(actions)).toEqual(['Failed']);
    expect(actions.filter((a) => a.type === 'dispatch')).toEqual([]);
  });
});

describe('when a compensation is refused permanently', () => {
  function refusedUndo(): Run {
    const run = secondStepInFlight();
    run.reply(refused('card declined'));
    run.reply(refused('reservation unknown'));
    return run;
  }

  it('stops in Error and alerts that compensation failed', () => {
    const run = refusedUndo();
    const { doc, actions } = run;
    expect(doc).toMatchObject({
      state: 'Error',
      mode: 'compensate',
      lockedBy: null,
      completeBy: null,
      deleteTime: null,
    });
    expect(doc.steps[0]).toMatchObject({ state: 'Compensating', error: 'reservation unknown' });
    expect(alerts(actions)).toEqual([
      expect.objectContaining({
        kind: 'CompensationFailed',
        step: 'reserve-inventory',
        reason: 'reserve-inventory compensation refused: reservation unknown; an operator must resolve it',
      }),
    ]);
    const events = actions.flatMap((a) => (a.type === 'status' ? [a.event] : []));
    expect(events).toEqual([
      expect.objectContaining({ status: 'Failed', reason: 'compensation refused: reservation unknown' }),
    ]);
  });

  it('retries the same compensation after a resubmit and finishes undoing', () => {
    const run = refusedUndo();
    const before = run.doc;
    run.now += 60_000;
    const resubmitted = run.apply({ type: 'resubmit', by: 'op' }, 'dashboard-1');
    expect(resubmitted.next).toMatchObject({
      state: 'Pending',
      mode: 'compensate',
      failureCount: 0,
      reason: 'resubmitted by op',
    });
    expect(resubmitted.actions).toEqual([{ type: 'wake', atMs: run.now }]);
    run.apply({ type: 'claim' });
    expect(run.request()).toMatchObject({
      step: 'reserve-inventory',
      mode: 'compensate',
      operation: 'release',
      idempotencyKey: 'p-1/reserve-inventory/compensate',
      attempt: before.attempt + 2,
    });
    expect(run.doc.steps[0]?.dispatches).toBe(2);
    expect(run.reply(ok()).next.state).toBe('Compensated');
  });
});
