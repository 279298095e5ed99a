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

/** Asserts an input is refused with the given reason and that the process is exactly as before. */
function expectIgnored(run: Run, input: ProcessInput, reason: string): void {
  const before = structuredClone(run.doc);
  const result = run.try(input);
  expect(result).toEqual({ applied: false, reason });
  expect(run.doc).toEqual(before);
}

/** A process whose second step (charge-payment, attempt 2) is in flight. */
function secondStepInFlight(): { run: Run; held: AgentRequest } {
  const run = new Run();
  run.apply({ type: 'claim' });
  run.reply(ok({ reservationId: 'r-1' }));
  return { run, held: run.request() };
}

const reply = (request: AgentRequest, body: ReplyBody = ok()): ProcessInput => ({
  type: 'reply',
  reply: answer(request, body, T0),
});

describe('when a reply arrives for an older attempt', () => {
  it('changes nothing and says which attempt is current', () => {
    const { run, held } = secondStepInFlight();
    run.expire();
    run.apply({ type: 'claim' });
    expect(run.doc.attempt).toBe(4);
    for (const body of [ok(), { outcome: 'error', errorKind: 'permanent', message: 'no' } as const]) {
      expectIgnored(run, reply(held, body), 'stale reply from payment-1: attempt 2 is not current (4)');
    }
  });

  it('ignores the same reply delivered twice', () => {
    const { run } = secondStepInFlight();
    const first = reply(run.request());
    run.apply(first);
    expectIgnored(run, first, 'stale reply from payment-1: attempt 2 is not current (3)');
  });
});

describe('when a reply names a step that is not the one held', () => {
  it('changes nothing for a wrong step index', () => {
    const { run, held } = secondStepInFlight();
    expectIgnored(
      run,
      reply({ ...held, stepIndex: 0 }),
      'stale reply from payment-1: step charge-payment#0 is not current (#1)',
    );
  });

  it('changes nothing for a wrong step name at the right index', () => {
    const { run, held } = secondStepInFlight();
    expectIgnored(
      run,
      reply({ ...held, step: 'reserve-inventory' }),
      'stale reply from payment-1: step reserve-inventory#1 is not current (#1)',
    );
  });
});

describe('when a reply is for the other direction', () => {
  it('ignores a compensation reply while the process runs forward', () => {
    const { run, held } = secondStepInFlight();
    expectIgnored(
      run,
      reply({ ...held, mode: 'compensate' }),
      'stale reply from payment-1: process is Processing, not Compensating',
    );
  });

  it('ignores a forward reply while the process compensates', () => {
    const { run } = secondStepInFlight();
    run.reply({ outcome: 'error', errorKind: 'permanent', message: 'card declined' });
    expect(run.doc.state).toBe('Compensating');
    const undo = run.request();
    expectIgnored(
      run,
      reply({ ...undo, mode: 'forward', attempt: run.doc.attempt }),
      'stale reply from inventory-1: process is Compensating, not Processing',
    );
  });
});

describe('when a reply arrives after the process ended', () => {
  it('changes nothing, even one carrying the last attempt', () => {
    const run = new Run();
    run.apply({ type: 'claim' });
    run.reply(ok());
    run.reply(ok());
    const last = run.request();
    run.reply(ok());
    expect(run.doc.state).toBe('Processed');
    expectIgnored(run, reply(last), 'stale reply from shipping-1: process is Processed, not Processing');
  });
});

describe('when a second scheduler claims a held process', () => {
  it('refuses the claim', () => {
    const run = new Run();
    run.apply({ type: 'claim' });
    expectIgnored(run, { type: 'claim' }, 'not claimable: state is Processing');
  });
});

describe('when a scheduler claims before notBefore', () => {
  it('refuses the claim and says when it may claim', () => {
    const { run } = secondStepInFlight();
    run.reply({ outcome: 'parked', retryAfterMs: 30_000, reason: 'circuit open' });
    run.now += 29_999;
    expectIgnored(run, { type: 'claim' }, `not claimable before ${new Date(T0 + 30_000).toISOString()}`);
    run.now += 1;
    expect(run.try({ type: 'claim' }).applied).toBe(true);
  });
});

describe('when the supervisor looks too early or at the wrong process', () => {
  it('does not expire a step before its complete-by time', () => {
    const run = new Run();
    run.apply({ type: 'claim' });
    run.now = T0 + 4_999;
    expectIgnored(run, { type: 'expire' }, 'not expired: state Processing');
    run.now = T0 + 5_000;
    expect(run.try({ type: 'expire' }).applied).toBe(true);
  });

  it('does not expire a Pending process', () => {
    const run = new Run();
    run.now = T0 + 60_000;
    expectIgnored(run, { type: 'expire' }, 'not expired: state Pending');
  });

  it('does not expire a finished process', () => {
    const run = new Run();
    run.apply({ type: 'claim' });
    run.reply(ok());
    run.reply(ok());
    run.reply(ok());
    run.now += 3_600_000;
    expectIgnored(run, { type: 'expire' }, 'not expired: state Processed');
  });
});

describe('when anything at all reaches a terminal process', () => {
  it('changes nothing', () => {
    const run = new Run();
    run.apply({ type: 'claim' });
    const requests = [run.request()];
    run.reply(ok());
    requests.push(run.request());
    run.reply(ok());
    requests.push(run.request());
    run.reply(ok());
    run.now += 1_000_000;
    const inputs: ProcessInput[] = [
      { type: 'claim' },
      { type: 'expire' },
      { type: 'resubmit', by: 'op' },
      { type: 'cancel', by: 'op' },
      ...requests.flatMap((r) => [
        reply(r),
        reply(r, { outcome: 'error', errorKind: 'transient', message: 'x' }),
      ]),
    ];
    for (const input of inputs) expect(run.try(input).applied).toBe(false);
  });
});
