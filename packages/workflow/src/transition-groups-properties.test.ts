import {
  AgentRequest,
  Alert,
  ProcessDocument,
  ProcessEventEntry,
  StatusEvent,
  isTerminal,
  type AgentReply,
  type ProcessState,
} from '@sas/contracts';
import { createProcess } from './create-process';
import type { ProcessInput } from './process-input';
import { groupFulfilment, groupFulfilmentManual } from './test-support/group-workflow';
import { T0 } from './test-support/process-run';
import { answer, ok, refused, type ReplyBody } from './test-support/reply-body';
import { transition } from './transition';
import type { TransitionResult } from './transition-result';
import type { WorkflowDefinition } from './workflow-definition';
import { prng } from './test-support/prng';

// Random walks through workflows with parallel groups and conditions: claims, replies to any
// member's request (current, late, duplicated), expiries, unsent dispatches, resubmits, cancels
// and agents paused and resumed, with the safety rules checked after every input.

const SEQUENCES = 1000;
const MAX_INPUTS = 50;

const workflows: WorkflowDefinition[] = [
  groupFulfilment,
  groupFulfilmentManual,
  {
    ...groupFulfilment,
    name: 'group-waiting',
    failureThreshold: 2,
    onThreshold: { policy: 'wait', waitMs: 20_000, maxWaits: 2 },
  },
  {
    // The group first, a condition on it (payload.split decides) and on the last step.
    ...groupFulfilment,
    name: 'group-first',
    failureThreshold: 2,
    steps: [
      { ...groupFulfilment.steps[1]!, condition: 'payload.split' },
      { ...groupFulfilment.steps[0]!, condition: 'results["charge-payment"] != null' },
      groupFulfilment.steps[2]!,
    ],
  },
];

const isHeld = (state: ProcessState): boolean => state === 'Processing' || state === 'Compensating';

function randomReply(request: AgentRequest, random: () => number, at: number): AgentReply {
  const r = random();
  let body: ReplyBody;
  if (r < 0.6) body = ok({ n: Math.floor(random() * 100) });
  else if (r < 0.63) body = { outcome: 'ok', result: {}, resultRefused: 'too large' };
  else if (r < 0.78) body = { outcome: 'error', errorKind: 'transient', message: 'gave up' };
  else if (r < 0.88) body = refused('refused');
  else body = { outcome: 'parked', retryAfterMs: Math.floor(random() * 5000), reason: 'circuit open' };
  return answer(request, body, at);
}

/** See transition-properties.test.ts: dates copied by structuredClone come from the outer realm under jest. */
function sameRealm<T>(value: T): T {
  if (Object.prototype.toString.call(value) === '[object Date]') return new Date((value as Date).getTime()) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => sameRealm(v)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sameRealm(v)])) as T;
  return value;
}

/** Every rule one applied transition must keep; `sent` holds every request sent before it. */
function violations(
  prev: ProcessDocument,
  input: ProcessInput,
  result: TransitionResult,
  now: number,
  wf: WorkflowDefinition,
  sent: readonly AgentRequest[],
  finished: ReadonlySet<number>,
): string[] {
  if (!result.applied) return [];
  const { next, actions, history } = result;
  const broken: string[] = [];
  const check = (ok: boolean, what: string): void => {
    if (!ok) broken.push(what);
  };
  check(!isTerminal(prev.state), `terminal ${prev.state} changed to ${next.state}`);
  check(next.revision === prev.revision + 1, 'revision did not move by one');
  check(!(prev.mode === 'compensate' && next.mode === 'forward'), 'mode went back to forward');
  const held = isHeld(next.state);
  check(held === (next.lockedBy !== null), `${next.state} with lockedBy ${next.lockedBy}`);
  check(held === (next.completeBy !== null), `${next.state} with completeBy ${String(next.completeBy)}`);
  if (next.state !== 'Error') check(next.failureCount < wf.failureThreshold, 'failureCount at threshold');
  if (next.mode === 'forward' && next.state !== 'Error') {
    for (const s of next.steps) check((s.failureCount ?? 0) < wf.failureThreshold, `${s.name} failureCount at threshold`);
  }
  // The supervisor's index: a Processing group is swept at its earliest member in flight.
  const group = next.steps[next.currentStep]?.group;
  if (next.state === 'Processing' && next.mode === 'forward' && group !== undefined) {
    const flying = next.steps.filter((s) => s.group === group && s.state === 'Running' && s.completeBy);
    const earliest = Math.min(...flying.map((s) => s.completeBy!.getTime()));
    check(flying.length > 0 && next.completeBy?.getTime() === earliest, 'Processing group not swept at its earliest member');
  }
  if (next.state === 'Processed') check(next.steps.every((s) => s.state === 'Completed' || s.state === 'Skipped'), 'Processed with an unfinished step');
  if (next.state === 'Compensated' || next.state === 'Canceled') {
    const left = next.steps.filter((s) => s.compensation !== null && ['Completed', 'Running', 'Compensating'].includes(s.state));
    check(left.length === 0, `${next.state} with ${left.map((s) => s.name).join(',')} not undone`);
  }
  next.steps.forEach((s, i) => {
    const before = prev.steps[i];
    if (before?.state === 'Skipped') check(s.state === 'Skipped', `skipped ${s.name} became ${s.state}`);
    if (before?.state === 'Completed' && s.state !== 'Completed') check(s.state === 'Compensating', `Completed -> ${s.state}`);
  });
  // A reply applied to a member answered that member's own current attempt.
  if (input.type === 'reply' && input.reply.mode === 'forward') {
    const member = prev.steps[input.reply.stepIndex];
    if (member?.group !== undefined) check(member.state === 'Running' && member.attempt === input.reply.attempt && member.completeBy != null, 'member reply applied off its fence');
  }
  const attempts = new Set(sent.map((r) => r.attempt));
  for (const { request } of actions.flatMap((a) => (a.type === 'dispatch' ? [a] : []))) {
    const step = next.steps[request.stepIndex];
    const prior = prev.steps[request.stepIndex];
    check(!attempts.has(request.attempt), `attempt ${request.attempt} sent twice`);
    attempts.add(request.attempt);
    check(step?.name === request.step && step.idempotencyKey === request.idempotencyKey, 'dispatch does not match its record');
    check(prior?.state !== 'Skipped', `skipped ${request.step} dispatched`);
    if (request.mode === 'forward') {
      check(next.mode === 'forward' && prior?.state !== 'Completed', `completed ${request.step} re-run`);
      if (step?.group !== undefined) check(step.attempt === request.attempt && step.completeBy?.getTime() === request.completeBy, 'member fence not recorded');
      // A member sees what came before its group, nothing of its siblings.
      const start = next.steps.findIndex((s) => s.group !== undefined && s.group === step?.group);
      const before = next.steps.slice(0, step?.group !== undefined ? start : request.stepIndex).filter((s) => s.result !== null);
      check(JSON.stringify(request.results) === JSON.stringify(Object.fromEntries(before.map((s) => [s.name, s.result]))), 'results are not those before the entry');
    } else {
      // The safety rule: an undo never overtakes a forward call of its step that may still land
      // (one whose agent answered ok or refused has finished; any other may still call until its complete-by).
      const forward = sent.filter((r) => r.mode === 'forward' && r.step === request.step && !finished.has(r.attempt));
      const latest = Math.max(0, ...forward.map((r) => r.completeBy));
      check(latest <= now, `undo of ${request.step} sent ${latest - now} ms before its forward call's complete-by`);
    }
  }
  check(ProcessDocument.safeParse(sameRealm(next)).success, 'next document breaks its schema');
  check(ProcessEventEntry.safeParse(history).success, 'history entry breaks its schema');
  for (const a of actions) {
    if (a.type === 'dispatch') check(AgentRequest.safeParse(a.request).success, 'request breaks its schema');
    if (a.type === 'status') check(StatusEvent.safeParse(a.event).success, 'status event breaks its schema');
    if (a.type === 'alert') check(Alert.safeParse(a.alert).success, 'alert breaks its schema');
    if (a.type === 'wake') check(next.state === 'Pending' && a.atMs === next.notBefore.getTime(), 'wake does not match');
  }
  return broken;
}

/** The next input of a walk and the clock it runs at, mostly moved to when it may apply. */
function randomInput(doc: ProcessDocument, sent: readonly AgentRequest[], at: number, random: () => number): { input: ProcessInput; now: number } {
  let now = at + Math.floor(random() * 1500);
  // The latest request of each step: a group has several current ones.
  const latest = [...new Map(sent.map((r) => [`${r.step}/${r.mode}`, r])).values()];
  const pick = <T>(xs: readonly T[]): T | undefined => xs[Math.floor(random() * xs.length)];
  const r = random();
  if (r < 0.22) {
    if (random() < 0.8 && doc.notBefore.getTime() < 1e14) now = Math.max(now, doc.notBefore.getTime());
    return { input: { type: 'claim' }, now };
  }
  const current = pick(latest);
  if (r < 0.62 && current) return { input: { type: 'reply', reply: randomReply(current, random, now) }, now };
  const old = pick(sent);
  if (r < 0.72 && old) return { input: { type: 'reply', reply: randomReply(old, random, now) }, now };
  if (r < 0.86) {
    if (doc.completeBy && random() < 0.8) now = Math.max(now, doc.completeBy.getTime());
    return { input: { type: 'expire' }, now };
  }
  if (r < 0.9 && current) return { input: { type: 'undelivered', attempt: (random() < 0.7 ? current : (old ?? current)).attempt, error: 'redis unreachable' }, now };
  return { input: r < 0.96 ? { type: 'resubmit', by: 'op' } : { type: 'cancel', by: 'op' }, now };
}

/** Whether the agent is done with the request it answers: it succeeded or was refused (not parked, not given up). */
function finishes(reply: AgentReply): boolean {
  return reply.outcome === 'ok' || (reply.outcome === 'error' && reply.errorKind === 'permanent');
}

const AGENTS = ['inventory', 'payment', 'shipping', 'mailer'];

describe('when random inputs hit processes with parallel groups and conditions', () => {
  it('keeps every safety rule after every input', () => {
    const found: string[] = [];
    const tally = new Map<string, number>();
    const count = (key: string): void => void tally.set(key, (tally.get(key) ?? 0) + 1);
    for (let seed = 1; seed <= SEQUENCES && found.length < 20; seed++) {
      const random = prng(seed);
      const workflow = workflows[seed % workflows.length]!;
      const payload = { split: random() < 0.7 };
      let doc = createProcess({ processId: `p-${seed}`, orderId: `o-${seed}`, payload, replyTo: 'app.status', workflow, now: T0 });
      let now = T0;
      const sent: AgentRequest[] = [];
      const finished = new Set<number>();
      const paused = new Set<string>();
      for (let i = 0; i < MAX_INPUTS; i++) {
        // Now and then an operator pauses or resumes an agent.
        if (random() < 0.05) {
          const agent = AGENTS[Math.floor(random() * AGENTS.length)]!;
          if (paused.has(agent)) paused.delete(agent);
          else paused.add(agent);
        }
        const next = randomInput(doc, sent, now, random);
        now = next.now;
        const given = JSON.stringify(doc);
        const result = transition(doc, next.input, { workflow, now, who: 'scheduler-1', replyQueue: 'scheduler.replies', pausedAgents: paused });
        const where = `seed ${seed} input ${i} (${next.input.type}, ${doc.state})`;
        if (JSON.stringify(doc) !== given) found.push(`${where}: the given document was changed`);
        if (next.input.type === 'reply' && finishes(next.input.reply)) finished.add(next.input.reply.attempt);
        for (const v of violations(doc, next.input, result, now, workflow, sent, finished)) found.push(`${where}: ${v}`);
        count(`${next.input.type}:${result.applied ? 'applied' : 'ignored'}`);
        if (!result.applied) continue;
        const dispatched = result.actions.flatMap((a) => (a.type === 'dispatch' ? [a.request] : []));
        if (dispatched.length > 1) count('group dispatch');
        if (dispatched.some((r) => r.mode === 'compensate' && result.next.steps[r.stepIndex]?.group !== undefined)) count('member undone');
        if (result.history.why.includes('condition false')) count('skipped');
        if (next.input.type === 'reply' && doc.state === 'Pending' && next.input.reply.mode === 'forward') count('member reply while Pending');
        doc = result.next;
        count(doc.state);
        sent.push(...dispatched);
      }
    }
    expect(found).toEqual([]);
    for (const key of ['Processed', 'Compensated', 'Canceled', 'Error', 'Pending', 'Processing', 'Compensating']) {
      expect(tally.get(key) ?? 0).toBeGreaterThan(10);
    }
    for (const key of ['group dispatch', 'member undone', 'skipped', 'member reply while Pending']) {
      expect(tally.get(key) ?? 0).toBeGreaterThan(10);
    }
    for (const type of ['claim', 'reply', 'expire', 'undelivered', 'resubmit', 'cancel']) {
      expect(tally.get(`${type}:applied`) ?? 0).toBeGreaterThan(20);
    }
  });
});
