import {
  QueueNames,
  type AgentReply,
  type AgentRequest,
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

// --- tests ---

describe('every applied transition', () => {
  /** Inputs touching every kind of transition: claim, each reply outcome, expire, cancel, resubmit. */
  function script(run: Run): Array<() => ProcessInput> {
    const reply = (body: ReplyBody) => (): ProcessInput => ({
      type: 'reply',
      reply: answer(run.request(), body, run.now),
    });
    const expire = (): ProcessInput => {
      run.now = run.doc.completeBy?.getTime() ?? run.now;
      return { type: 'expire' };
    };
    return [
      () => ({ type: 'claim' }),
      reply(ok({ reservationId: 'r-1' })),
      expire,
      () => ({ type: 'claim' }),
      reply({ outcome: 'error', errorKind: 'transient', message: 'gateway timeout' }),
      () => ({ type: 'claim' }),
      reply({ outcome: 'parked', retryAfterMs: 1000, reason: 'circuit open' }),
      () => ({ type: 'cancel', by: 'op', reason: 'customer asked' }),
      () => ({ type: 'claim' }),
      reply({ outcome: 'error', errorKind: 'permanent', message: 'refund refused' }),
      () => ({ type: 'resubmit', by: 'op' }),
      () => ({ type: 'claim' }),
      reply(ok()),
      reply(ok()),
    ];
  }

  it('adds one to revision, stamps updatedAt and records from, to, why and attempt', () => {
    const run = new Run();
    for (const next of script(run)) {
      run.now += 10;
      const before = run.doc;
      const result = run.apply(next());
      expect(result.next.revision).toBe(before.revision + 1);
      expect(result.next.updatedAt).toEqual(new Date(run.now));
      expect(result.history).toMatchObject({
        processId: 'p-1',
        orderId: 'o-1',
        at: new Date(run.now),
        from: before.state,
        to: result.next.state,
        attempt: result.next.attempt,
        step: result.next.steps[result.next.currentStep]?.name,
        who: 'scheduler-1',
        deleteTime: new Date(run.now + 2 * orderFulfilmentV1.retentionMs),
      });
      expect(result.history.why.length).toBeGreaterThan(0);
    }
    expect(run.doc.state).toBe('Canceled');
  });

  it('never changes the document it was given, even a frozen one', () => {
    const run = new Run();
    for (const next of script(run)) {
      run.now += 10;
      const input = next();
      const given = deepFreeze(run.doc);
      const snapshot = structuredClone(given);
      // Freezing does not protect a Date's internal time, so compare the instants as well.
      const instants = [given.notBefore, given.updatedAt, given.completeBy].map((d) => d?.getTime());
      const result = run.apply(input);
      expect(result.next).not.toBe(given);
      expect(given).toEqual(snapshot);
      expect([given.notBefore, given.updatedAt, given.completeBy].map((d) => d?.getTime())).toEqual(instants);
    }
  });
});

/** Freezes a value and everything it holds, so a transition that writes to its input throws. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
