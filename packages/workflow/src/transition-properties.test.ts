import {
  AgentRequest,
  Alert,
  ProcessDocument,
  ProcessEventEntry,
  MAX_STEP_RESULT_BYTES,
  QueueNames,
  StatusEvent,
  stepResultProblem,
  isTerminal,
  type AgentReply,
  type ProcessState,
} from '@sas/contracts';
import { createProcess } from './create-process';
import { orderFulfilmentManualV1, orderFulfilmentV1 } from './order-fulfilment';
import type { ProcessInput } from './process-input';
import { transition } from './transition';
import type { TransitionResult } from './transition-result';
import { T0 } from './test-support/process-run';
import { answer, ok, refused, type ReplyBody } from './test-support/reply-body';
import type { WorkflowDefinition } from './workflow-definition';
import { prng } from './test-support/prng';

// Random walks through the protocol: thousands of seeded sequences of claims, replies (current and
// stale), expiries, resubmits and cancels, with the invariants checked after every input.

const SEQUENCES = 3000;
const MAX_INPUTS = 40;

const workflows: WorkflowDefinition[] = [
  orderFulfilmentV1,
  orderFulfilmentManualV1,
  {
    ...orderFulfilmentV1,
    name: 'waiting',
    failureThreshold: 2,
    onThreshold: { policy: 'wait', waitMs: 30_000, maxWaits: 2 },
    onPermanentFailure: 'error',
  },
  {
    ...orderFulfilmentV1,
    name: 'partly-undoable',
    failureThreshold: 1,
    steps: orderFulfilmentV1.steps.map((s, i) => (i === 1 ? { ...s, compensation: null } : s)),
  },
];

const isHeld = (state: ProcessState): boolean => state === 'Processing' || state === 'Compensating';

/** A result an older agent sends without checking it: over the size limit, so it must never be stored. */
const OVERSIZED = { receipt: 'x'.repeat(MAX_STEP_RESULT_BYTES) };

/** A reply to `request` with a random outcome, mostly successes, a few with results that cannot be carried. */
function randomReply(request: AgentRequest, random: () => number, at: number): AgentReply {
  const r = random();
  let body: ReplyBody;
  if (r < 0.6) body = ok({ n: Math.floor(random() * 100) });
  else if (r < 0.63) body = ok(OVERSIZED);
  else if (r < 0.65) body = { outcome: 'ok', result: {}, resultRefused: 'too large' };
  else if (r < 0.78) body = { outcome: 'error', errorKind: 'transient', message: 'gave up' };
  else if (r < 0.9) body = refused('refused');
  else body = { outcome: 'parked', retryAfterMs: Math.floor(random() * 5000), reason: 'circuit open' };
  return answer(request, body, at);
}

/**
 * Jest runs tests in a vm context whose `structuredClone` (the one ProcessDraft copies with) is the
 * outer realm's, so copied dates fail zod's `instanceof Date` here though not in a service. Rebuild
 * them in this realm before validating; everything else is checked as produced.
 */
function sameRealm<T>(value: T): T {
  if (Object.prototype.toString.call(value) === '[object Date]')
    return new Date((value as Date).getTime()) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => sameRealm(v)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sameRealm(v)])) as T;
  }
  return value;
}

/** Whether the input should apply, from the guards alone: an oracle independent of the code under test. */
function shouldApply(doc: ProcessDocument, input: ProcessInput, now: number, who: string): boolean {
  switch (input.type) {
    case 'claim':
      return doc.state === 'Pending' && doc.notBefore.getTime() <= now;
    case 'reply':
      return isHeld(doc.state) && input.reply.attempt === doc.attempt;
    case 'expire':
      return isHeld(doc.state) && doc.completeBy !== null && doc.completeBy.getTime() <= now;
    case 'resubmit':
      return doc.state === 'Error';
    case 'cancel':
      return doc.mode === 'forward' && ['Pending', 'Processing', 'Error'].includes(doc.state);
    case 'undelivered':
      return isHeld(doc.state) && input.attempt === doc.attempt && doc.lockedBy === who;
    case 'signal':
      // Not generated here: these workflows have no signal step (signal steps have their own tests).
      throw new Error('the property run does not send signals');
  }
}

/** Every invariant one applied transition must keep; returns what it broke. */
function violations(
  prev: ProcessDocument,
  result: TransitionResult,
  now: number,
  wf: WorkflowDefinition,
): string[] {
  if (!result.applied) return [];
  const { next, actions, history } = result;
  const broken: string[] = [];
  const check = (ok: boolean, what: string): void => {
    if (!ok) broken.push(what);
  };
  check(!isTerminal(prev.state), `terminal ${prev.state} changed to ${next.state}`);
  check(next.revision === prev.revision + 1, `revision ${prev.revision} -> ${next.revision}`);
  check(next.updatedAt.getTime() === now, 'updatedAt is not now');
  check(history.from === prev.state && history.to === next.state, 'history from/to wrong');
  check(history.attempt === next.attempt, 'history attempt wrong');
  check(next.attempt >= prev.attempt, `attempt went back ${prev.attempt} -> ${next.attempt}`);
  check(!(prev.mode === 'compensate' && next.mode === 'forward'), 'mode went back to forward');
  if (prev.mode === 'forward' && next.mode === 'compensate')
    check(next.failureCount === 0, 'undo inherited a count');
  const held = isHeld(next.state);
  check(held === (next.lockedBy !== null), `${next.state} with lockedBy ${next.lockedBy}`);
  check(held === (next.completeBy !== null), `${next.state} with completeBy ${String(next.completeBy)}`);
  if (held || next.state === 'Pending')
    check(next.failureCount < wf.failureThreshold, 'failureCount at threshold');
  if (wf.onThreshold.policy === 'wait') check(next.waits <= wf.onThreshold.maxWaits, 'too many waits');
  const retained = next.deleteTime?.getTime() === now + wf.retentionMs;
  check(
    isTerminal(next.state) ? retained : next.deleteTime === null,
    `${next.state} with deleteTime ${String(next.deleteTime)}`,
  );
  const allDone = next.steps.every((s) => s.state === 'Completed');
  if (next.state === 'Processed') check(allDone, 'Processed with an unfinished step');
  if (next.state === 'Compensated' || next.state === 'Canceled') {
    const undoable = ['Completed', 'Running', 'Compensating'];
    const left = next.steps.filter((s) => s.compensation !== null && undoable.includes(s.state));
    check(left.length === 0, `${next.state} with ${left.map((s) => s.name).join(',')} not undone`);
  }
  next.steps.forEach((s, i) => {
    const before = prev.steps[i];
    const forward = `${prev._id}/${s.name}`;
    const key = s.idempotencyKey;
    check(key === forward || key === `${forward}/compensate`, `odd key ${key}`);
    if (before?.idempotencyKey.endsWith('/compensate'))
      check(s.idempotencyKey === before.idempotencyKey, 'key changed back');
    if (before?.state === 'Completed' && s.state !== 'Completed')
      check(s.state === 'Compensating', `Completed -> ${s.state}`);
    if (before?.state !== 'Completed' && s.state === 'Completed')
      check(before?.state === 'Running', `${before?.state} -> Completed`);
    if (s.state === 'Completed')
      check(!s.idempotencyKey.endsWith('/compensate'), 'Completed again after an undo began');
    check(s.result === null || stepResultProblem(s.result) === null, `${s.name} stores a result that cannot be carried`);
  });
  const dispatches = actions.flatMap((a) => (a.type === 'dispatch' ? [a] : []));
  check(dispatches.length <= 1, `${dispatches.length} dispatches in one transition`);
  for (const { queue, request } of dispatches) {
    const step = next.steps[request.stepIndex];
    const { attempt, mode, stepIndex } = request;
    check(held && attempt === next.attempt && mode === next.mode, 'dispatch is not the held attempt');
    check(stepIndex === next.currentStep && step?.name === request.step, 'dispatch is not the current step');
    check(step?.idempotencyKey === request.idempotencyKey, 'dispatch key differs from the step record');
    check(mode === 'forward' || request.idempotencyKey.endsWith('/compensate'), 'undo without its key');
    check(queue === QueueNames.agentRequests(request.agent), `wrong queue ${queue}`);
    check(mode === 'compensate' || prev.steps[stepIndex]?.state !== 'Completed', 'completed step re-run');
    const earlier = next.steps.slice(0, stepIndex).filter((s) => s.result !== null);
    check(JSON.stringify(request.results) === JSON.stringify(Object.fromEntries(earlier.map((s) => [s.name, s.result]))), 'results are not the earlier steps\' results');
  }
  // What is stored and sent must satisfy the contracts every other service validates against.
  check(ProcessDocument.safeParse(sameRealm(next)).success, 'next document breaks its schema');
  check(ProcessEventEntry.safeParse(history).success, 'history entry breaks its schema');
  for (const a of actions) {
    if (a.type === 'dispatch') check(AgentRequest.safeParse(a.request).success, 'request breaks its schema');
    if (a.type === 'status') check(StatusEvent.safeParse(a.event).success, 'status event breaks its schema');
    if (a.type === 'alert') check(Alert.safeParse(a.alert).success, 'alert breaks its schema');
    if (a.type === 'wake')
      check(next.state === 'Pending' && a.atMs === next.notBefore.getTime(), 'wake does not match');
    if (a.type === 'status')
      check(next.replyTo !== null && a.replyTo === next.replyTo, 'status without replyTo');
  }
  return broken;
}

/** The next input of a walk, and the clock it runs at: moved to when it may apply most of the time. */
function randomInput(doc: ProcessDocument, sent: readonly AgentRequest[], at: number, random: () => number) {
  let now = at + Math.floor(random() * 2000);
  const latest = sent[sent.length - 1];
  const r = random();
  let input: ProcessInput;
  if (r < 0.25) {
    if (random() < 0.8) now = Math.max(now, doc.notBefore.getTime());
    input = { type: 'claim' };
  } else if (r < 0.6 && latest) {
    input = { type: 'reply', reply: randomReply(latest, random, now) };
  } else if (r < 0.72 && latest) {
    // Any earlier request: duplicates and late answers of attempts long superseded.
    const old = sent[Math.floor(random() * sent.length)] ?? latest;
    input = { type: 'reply', reply: randomReply(old, random, now) };
  } else if (r < 0.86) {
    if (doc.completeBy && random() < 0.8) now = Math.max(now, doc.completeBy.getTime());
    input = { type: 'expire' };
  } else if (r < 0.9 && latest) {
    // A dispatch that could not be sent: mostly the latest, sometimes one long superseded.
    const which = random() < 0.7 ? latest : (sent[Math.floor(random() * sent.length)] ?? latest);
    input = { type: 'undelivered', attempt: which.attempt, error: 'redis unreachable' };
  } else {
    input = r < 0.96 ? { type: 'resubmit', by: 'op' } : { type: 'cancel', by: 'op' };
  }
  return { input, now };
}

describe('when random inputs, stale ones included, hit the state machine', () => {
  it('keeps every protocol invariant after every input', () => {
    const found: string[] = [];
    const tally = new Map<string, number>();
    const count = (key: string): void => void tally.set(key, (tally.get(key) ?? 0) + 1);
    for (let seed = 1; seed <= SEQUENCES && found.length < 20; seed++) {
      const random = prng(seed);
      const workflow = workflows[seed % workflows.length] ?? orderFulfilmentV1;
      const replyTo = random() < 0.8 ? 'app.status' : null;
      const order = { processId: `p-${seed}`, orderId: `o-${seed}`, payload: {} };
      let doc = createProcess({ ...order, replyTo, workflow, now: T0 });
      let now = T0;
      const sent: AgentRequest[] = [];
      for (let i = 0; i < MAX_INPUTS; i++) {
        const next = randomInput(doc, sent, now, random);
        const { input } = next;
        now = next.now;
        const given = JSON.stringify(doc);
        const who = random() < 0.5 ? 'scheduler-1' : 'scheduler-2';
        const result = transition(doc, input, { workflow, now, who, replyQueue: 'scheduler.replies' });
        const where = `seed ${seed} input ${i} (${input.type}, ${doc.state})`;
        if (result.applied !== shouldApply(doc, input, now, who))
          found.push(`${where}: applied=${result.applied}`);
        if (JSON.stringify(doc) !== given) found.push(`${where}: the given document was changed`);
        for (const v of violations(doc, result, now, workflow)) found.push(`${where}: ${v}`);
        count(`${input.type}:${result.applied ? 'applied' : 'ignored'}`);
        if (result.applied && result.history.why.includes('cannot be carried')) count('uncarried');
        if (!result.applied) continue;
        doc = result.next;
        count(doc.state);
        for (const a of result.actions) if (a.type === 'dispatch') sent.push(a.request);
      }
    }
    expect(found).toEqual([]);
    // The walk must actually reach every state and exercise both sides of every guard.
    for (const state of [
      'Processed',
      'Compensated',
      'Canceled',
      'Error',
      'Pending',
      'Processing',
      'Compensating',
    ]) {
      expect(tally.get(state) ?? 0).toBeGreaterThan(10);
    }
    expect(tally.get('uncarried') ?? 0).toBeGreaterThan(50);
    for (const type of ['claim', 'reply', 'expire', 'resubmit', 'cancel']) {
      expect(tally.get(`${type}:applied`) ?? 0).toBeGreaterThan(50);
      expect(tally.get(`${type}:ignored`) ?? 0).toBeGreaterThan(50);
    }
  });
});
