import { ProcessDocument, isTerminal, type AgentReply, type AgentRequest } from '@sas/contracts';
import { createProcess } from './create-process';
import type { ProcessInput } from './process-input';
import { T0 } from './test-support/process-run';
import { answer, ok, refused, type ReplyBody } from './test-support/reply-body';
import { transition } from './transition';
import type { TransitionResult } from './transition-result';
import type { WorkflowDefinition, WorkflowEntry } from './workflow-definition';
import { prng } from './test-support/prng';

// Random walks through workflows with wait and signal steps: claims at and before their instants,
// signals (repeated ids, other names, sent early, late, after the end), replies current and stale,
// expiries, unsent dispatches, resubmits and cancels, with the rules of timers and signals checked
// after every input.

const SEQUENCES = 400;
const MAX_INPUTS = 40;

const retry = { maxAttempts: 3, initialBackoffMs: 50, maxBackoffMs: 500, multiplier: 2, jitter: 0.5 };
const task = (name: string, agent: string): WorkflowEntry => ({ name, agent, operation: 'do', compensation: 'undo', completeByMs: 2_000, retry });
const base = { version: 1, failureThreshold: 2, onThreshold: { policy: 'compensate' }, onPermanentFailure: 'compensate', retentionMs: 86_400_000 } as const;
const signalStep = (onTimeout: 'compensate' | 'error' | 'continue'): WorkflowEntry => ({ name: 'approval', signal: { name: 'approved', timeoutMs: 5_000, onTimeout } });

const workflows: WorkflowDefinition[] = (['compensate', 'error', 'continue'] as const).flatMap((onTimeout): WorkflowDefinition[] => [
  { ...base, name: `timer-then-signal-${onTimeout}`, steps: [task('reserve', 'inventory'), { name: 'cool-off', wait: { ms: 3_000 } }, signalStep(onTimeout), task('ship', 'shipping')] },
  {
    ...base,
    name: `signal-first-${onTimeout}`,
    onPermanentFailure: 'error',
    steps: [signalStep(onTimeout), { name: 'until', wait: { until: 'payload.at' } }, task('ship', 'shipping')],
  },
]);

/** See transition-properties.test.ts: dates copied by structuredClone come from the outer realm under jest. */
function sameRealm<T>(value: T): T {
  if (Object.prototype.toString.call(value) === '[object Date]') return new Date((value as Date).getTime()) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => sameRealm(v)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sameRealm(v)])) as T;
  return value;
}

function randomReply(request: AgentRequest, random: () => number, at: number): AgentReply {
  const r = random();
  let body: ReplyBody;
  if (r < 0.75) body = ok({ n: Math.floor(random() * 100) });
  else if (r < 0.85) body = { outcome: 'error', errorKind: 'transient', message: 'gave up' };
  else body = refused('refused');
  return answer(request, body, at);
}

function randomInput(doc: ProcessDocument, sent: readonly AgentRequest[], at: number, random: () => number): { input: ProcessInput; now: number } {
  let now = at + Math.floor(random() * 2_000);
  const r = random();
  if (r < 0.3) {
    // Mostly at the process's notBefore (a timer's instant, a signal's deadline), sometimes early.
    if (random() < 0.75 && doc.notBefore.getTime() < 1e14) now = Math.max(now, doc.notBefore.getTime());
    return { input: { type: 'claim' }, now };
  }
  if (r < 0.55) {
    // Few ids, so repeats are common; now and then a name no step waits for.
    const signalId = `s-${Math.floor(random() * 4)}`;
    const name = random() < 0.85 ? 'approved' : 'other';
    return { input: { type: 'signal', signalId, name, data: { from: signalId }, by: 'shop' }, now };
  }
  const latest = sent.at(-1);
  if (r < 0.75 && latest) return { input: { type: 'reply', reply: randomReply(random() < 0.8 ? latest : (sent[Math.floor(random() * sent.length)] ?? latest), random, now) }, now };
  if (r < 0.82) {
    if (doc.completeBy) now = Math.max(now, doc.completeBy.getTime());
    return { input: { type: 'expire' }, now };
  }
  if (r < 0.86 && latest) return { input: { type: 'undelivered', attempt: latest.attempt, error: 'redis unreachable' }, now };
  return { input: r < 0.95 ? { type: 'resubmit', by: 'op' } : { type: 'cancel', by: 'op' }, now };
}

/** The rules of timers and signals one transition must keep. */
function violations(prev: ProcessDocument, input: ProcessInput, result: TransitionResult, now: number): string[] {
  const broken: string[] = [];
  const check = (ok: boolean, what: string): void => {
    if (!ok) broken.push(what);
  };
  if (input.type === 'signal') {
    const repeat = prev.signals?.some((s) => s.id === input.signalId) ?? false;
    if (repeat) check(!result.applied && result.alreadyApplied !== undefined, 'a repeated signal id was not answered as a repeat');
    if (isTerminal(prev.state) || prev.mode === 'compensate') check(!result.applied, `a signal was applied to a ${prev.state} ${prev.mode} process`);
  }
  if (!result.applied) return broken;
  const { next, actions } = result;
  check(!isTerminal(prev.state), `terminal ${prev.state} changed`);
  const signals = next.signals ?? [];
  check(new Set(signals.map((s) => s.id)).size === signals.length, 'a signal id kept twice');
  check(signals.length <= 50, 'more than 50 signals kept');
  for (const before of prev.signals ?? []) {
    const after = signals.find((s) => s.id === before.id);
    check(after !== undefined, `signal ${before.id} was dropped`);
    if (before.consumedBy) check(after?.consumedBy === before.consumedBy, `signal ${before.id} consumed again`);
  }
  next.steps.forEach((s, i) => {
    const before = prev.steps[i]!;
    check(signals.filter((x) => x.consumedBy === s.name).length <= 1, `${s.name} consumed more than one signal`);
    const justDone = before.state !== 'Completed' && s.state === 'Completed';
    if (s.kind === 'wait' && justDone) check(now >= s.waitUntil!.getTime(), `${s.name} fired ${s.waitUntil!.getTime() - now} ms early`);
    if (s.kind === 'signal' && justDone) {
      const consumed = signals.find((x) => x.consumedBy === s.name);
      if (consumed) check(JSON.stringify(s.result) === JSON.stringify(consumed.data), `${s.name}'s result is not its signal's data`);
      else check(JSON.stringify(s.result) === '{"timedOut":true}' && now >= s.waitUntil!.getTime(), `${s.name} completed without a signal before its deadline`);
    }
    if (s.kind === 'signal' && before.state === 'Running' && s.state === 'Failed') check(now >= before.waitUntil!.getTime(), `${s.name} timed out early`);
  });
  for (const a of actions) {
    if (a.type === 'dispatch') check(next.steps[a.request.stepIndex]?.kind === undefined, `a ${next.steps[a.request.stepIndex]?.kind} step was dispatched`);
    if (a.type === 'wake') check(next.state === 'Pending' && a.atMs === next.notBefore.getTime(), 'wake does not match notBefore');
  }
  // A waiting timer or signal step is woken no later than its instant: the timer is never lost.
  const current = next.steps[next.currentStep];
  if (next.state === 'Pending' && next.mode === 'forward' && current?.state === 'Running' && current.kind !== undefined) {
    check(next.notBefore.getTime() <= current.waitUntil!.getTime(), `${current.name} sleeps past its instant`);
  }
  // A finished process shows no step still running: a wait or signal step cut short by the undo is withdrawn.
  if (isTerminal(next.state)) {
    for (const s of next.steps) check(s.state !== 'Running', `${s.name} is Running in a ${next.state} process`);
  }
  check(ProcessDocument.safeParse(sameRealm(next)).success, 'next document breaks its schema');
  return broken;
}

describe('when random inputs hit processes with wait and signal steps', () => {
  it('never fires a timer early, never loses one, applies each signal at most once, and leaves nothing Running once finished', () => {
    const found: string[] = [];
    const tally = new Map<string, number>();
    const count = (key: string): void => void tally.set(key, (tally.get(key) ?? 0) + 1);
    for (let seed = 1; seed <= SEQUENCES && found.length < 20; seed++) {
      const random = prng(seed);
      const workflow = workflows[seed % workflows.length]!;
      const payload = { at: new Date(T0 + Math.floor(random() * 20_000) - 5_000).toISOString() };
      let doc = createProcess({ processId: `p-${seed}`, orderId: `o-${seed}`, payload, replyTo: 'app.status', workflow, now: T0 });
      let now = T0;
      const sent: AgentRequest[] = [];
      for (let i = 0; i < MAX_INPUTS; i++) {
        const next = randomInput(doc, sent, now, random);
        now = next.now;
        const given = JSON.stringify(doc);
        const result = transition(doc, next.input, { workflow, now, who: 'scheduler-1', replyQueue: 'scheduler.replies' });
        const where = `seed ${seed} input ${i} (${next.input.type}, ${doc.state})`;
        if (JSON.stringify(doc) !== given) found.push(`${where}: the given document was changed`);
        for (const v of violations(doc, next.input, result, now)) found.push(`${where}: ${v}`);
        if (next.input.type === 'signal') count(`signal:${result.applied ? (result.next.signals?.at(-1)?.consumedBy ? 'consumed' : 'kept') : result.alreadyApplied ? 'repeat' : 'refused'}`);
        if (!result.applied) continue;
        if (next.input.type === 'claim') {
          const fired = result.next.steps.find((s, k) => s.kind !== undefined && doc.steps[k]?.state === 'Running' && s.state !== 'Running');
          if (fired) count(`${fired.kind}:${fired.state}${fired.kind === 'signal' && fired.state === 'Completed' ? '(timed out)' : ''}`);
        }
        doc = result.next;
        count(doc.state);
        if (isTerminal(doc.state) && doc.steps.some((s) => s.kind !== undefined && s.state === 'Compensated')) count('withdrawn');
        sent.push(...result.actions.flatMap((a) => (a.type === 'dispatch' ? [a.request] : [])));
      }
    }
    expect(found).toEqual([]);
    // The walks reach every case they are meant to check, each more than a few times.
    const cases = ['signal:consumed', 'signal:kept', 'signal:repeat', 'signal:refused', 'wait:Completed', 'signal:Failed', 'signal:Completed(timed out)', 'Processed', 'Compensated', 'Canceled', 'Error', 'withdrawn'];
    expect(cases.filter((key) => (tally.get(key) ?? 0) <= 10)).toEqual([]);
  });
});
