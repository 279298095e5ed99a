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

const ok = (result: JsonObject = {}): ReplyBody => ({ outcome: 'ok', result });
const statuses = (actions: readonly Action[]): string[] =>
  actions.flatMap((a) => (a.type === 'status' ? [a.event.status] : []));
const transient: ReplyBody = { outcome: 'error', errorKind: 'transient', message: 'gateway timeout' };
const refused = (message: string): ReplyBody => ({ outcome: 'error', errorKind: 'permanent', message });
const alerts = (actions: readonly Action[]): Alert[] =>
  actions.flatMap((a) => (a.type === 'alert' ? [a.alert] : []));

// --- tests ---

/** A process whose first step completed and whose second step (charge-payment) is in flight. */
function secondStepInFlight(): Run {
  const run = new Run();
  run.apply({ type: 'claim' });
  run.reply(ok({ reservationId: 'r-1' }));
  return run;
}

describe('when a held step passes its complete-by time below the threshold', () => {
  it('releases the process to Pending with a new attempt, one more failure and a wake-up', () => {
    const run = new Run();
    run.apply({ type: 'claim' });
    const { next, actions, history } = run.expire();
    expect(next).toMatchObject({
      state: 'Pending',
      mode: 'forward',
      attempt: 2,
      failureCount: 1,
      lockedBy: null,
      completeBy: null,
    });
    expect(next.notBefore).toEqual(new Date(T0 + 5000));
    expect(next.reason).toBe('reserve-inventory: complete-by passed');
    expect(next.steps[0]?.state).toBe('Running');
    expect(actions).toEqual([{ type: 'wake', atMs: T0 + 5000 }]);
    expect(history).toMatchObject({ who: 'supervisor-1', from: 'Processing', to: 'Pending' });
    expect(history.why).toBe('complete-by passed; failure 1 of 3, retrying');
  });

  it('lets the next claim re-dispatch the same step with the same key and a new attempt', () => {
    const run = new Run();
    run.apply({ type: 'claim' });
    const first = run.request();
    run.expire();
    const { actions } = run.apply({ type: 'claim' }, 'scheduler-2');
    const again = run.request();
    expect(again).toEqual({ ...first, attempt: 3, completeBy: T0 + 5000 + 5000 });
    expect(statuses(actions)).toEqual([]);
    expect(run.doc).toMatchObject({ state: 'Processing', lockedBy: 'scheduler-2', failureCount: 1 });
    expect(run.doc.steps[0]).toMatchObject({ dispatches: 2, startedAt: new Date(T0) });
  });
});

describe('when an agent gives up on a step with a transient error', () => {
  it('counts a failure exactly as an expiry does', () => {
    const run = new Run();
    run.apply({ type: 'claim' });
    run.now += 700;
    const { next, actions } = run.reply(transient);
    expect(next).toMatchObject({
      state: 'Pending',
      attempt: 2,
      failureCount: 1,
      lockedBy: null,
      completeBy: null,
    });
    expect(next.notBefore).toEqual(new Date(T0 + 700));
    expect(next.reason).toBe('reserve-inventory: agent gave up: gateway timeout');
    expect(next.steps[0]).toMatchObject({ state: 'Running', error: null });
    expect(actions).toEqual([{ type: 'wake', atMs: T0 + 700 }]);
  });

  it('reaches the threshold together with expiries', () => {
    const run = new Run(orderFulfilmentManualV1);
    run.apply({ type: 'claim' });
    run.expire();
    run.apply({ type: 'claim' });
    run.reply(transient);
    run.apply({ type: 'claim' });
    const { next } = run.expire();
    expect(next).toMatchObject({ state: 'Error', failureCount: 3 });
  });
});

describe('when a step succeeds after failures', () => {
  it('starts the next step with a clean failure count', () => {
    const run = new Run();
    run.apply({ type: 'claim' });
    run.expire();
    run.apply({ type: 'claim' });
    run.expire();
    run.apply({ type: 'claim' });
    expect(run.doc.failureCount).toBe(2);
    run.reply(ok());
    expect(run.doc.failureCount).toBe(0);
    run.expire();
    run.apply({ type: 'claim' });
    const { next } = run.expire();
    expect(next).toMatchObject({ state: 'Pending', mode: 'forward', failureCount: 2 });
  });
});

describe('when an agent parks a step because its circuit is open', () => {
  function parked(): { run: Run; held: AgentRequest; result: Applied } {
    const run = new Run();
    run.apply({ type: 'claim' });
    run.expire();
    run.apply({ type: 'claim' });
    const held = run.request();
    run.now += 200;
    return {
      run,
      held,
      result: run.reply({ outcome: 'parked', retryAfterMs: 30_000, reason: 'circuit open' }),
    };
  }

  it('holds the process until retryAfterMs without counting a failure', () => {
    const { run, held, result } = parked();
    expect(result.next).toMatchObject({
      state: 'Pending',
      failureCount: 1,
      attempt: held.attempt + 1,
      lockedBy: null,
      completeBy: null,
    });
    expect(result.next.notBefore).toEqual(new Date(run.now + 30_000));
    expect(result.next.reason).toBe('reserve-inventory: circuit open');
    expect(result.actions).toEqual([{ type: 'wake', atMs: run.now + 30_000 }]);
  });

  it('treats a later reply of the parked attempt as stale', () => {
    const { run, held } = parked();
    run.now += 30_000;
    run.apply({ type: 'claim' });
    const late = answer(held, ok(), run.now);
    expect(run.try({ type: 'reply', reply: late })).toEqual({
      applied: false,
      reason: `stale reply from inventory-1: attempt ${held.attempt} is not current (${held.attempt + 2})`,
    });
    expect(run.request()).toMatchObject({ idempotencyKey: held.idempotencyKey, attempt: held.attempt + 2 });
  });

  it('parks a compensation the same way and resumes it under the same key', () => {
    const run = new Run();
    run.apply({ type: 'claim' });
    run.reply(ok());
    run.reply({ outcome: 'error', errorKind: 'permanent', message: 'card declined' });
    const undo = run.request();
    run.reply({ outcome: 'parked', retryAfterMs: 1000, reason: 'circuit open' });
    expect(run.doc).toMatchObject({ state: 'Pending', mode: 'compensate' });
    run.now += 1000;
    run.apply({ type: 'claim' });
    expect(run.request()).toEqual({ ...undo, attempt: undo.attempt + 2, completeBy: run.now + 5000 });
  });
});

describe('when a step that had already timed out is then refused permanently', () => {
  it('gives the undo a failure count of its own, so its first timeout is retried', () => {
    const run = secondStepInFlight();
    run.expire();
    run.apply({ type: 'claim' });
    run.expire();
    run.apply({ type: 'claim' });
    run.reply(refused('card declined'));
    expect(run.doc).toMatchObject({ state: 'Compensating', failureCount: 0 });
    expect(run.expire().next).toMatchObject({ state: 'Pending', mode: 'compensate', failureCount: 1 });
  });
});

describe('when a compensation keeps timing out', () => {
  it('retries it under the same key below the threshold', () => {
    const run = secondStepInFlight();
    run.reply(refused('card declined'));
    const undo = run.request();
    const { next } = run.expire();
    expect(next).toMatchObject({ state: 'Pending', mode: 'compensate', failureCount: 1 });
    run.apply({ type: 'claim' });
    expect(run.request()).toMatchObject({ idempotencyKey: undo.idempotencyKey, attempt: undo.attempt + 2 });
  });

  it('stops in Error with a CompensationFailed alert at the threshold', () => {
    const run = secondStepInFlight();
    run.reply(refused('card declined'));
    run.expire();
    run.apply({ type: 'claim' });
    run.expire();
    run.apply({ type: 'claim' });
    const { next, actions, history } = run.expire();
    expect(next).toMatchObject({
      state: 'Error',
      mode: 'compensate',
      failureCount: 3,
      lockedBy: null,
      deleteTime: null,
    });
    expect(alerts(actions)).toEqual([
      expect.objectContaining({ kind: 'CompensationFailed', step: 'reserve-inventory', failureCount: 3 }),
    ]);
    expect(statuses(actions)).toEqual(['Failed']);
    expect(history.why).toBe('complete-by passed; compensation threshold reached');
  });
});
