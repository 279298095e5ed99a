import type { JsonObject, ProcessDocument, SignalResult } from '@sas/contracts';
import type { Violation } from './invariants';
import { SIGNAL_STEPS, TRIP_WORKFLOWS, isTripWorkflow } from './trip-workflows';

type Sent = ReadonlyMap<string, { orderId: string; name: string; data: JsonObject; sends: number }>;

/**
 * Signals, from what the application sent and was answered: a signal's data is the result of at
 * most one step (however often it was sent), and only of a step waiting for its name; a completed
 * signal step holds a signal sent to it (or, for `continue`, the timeout's result); a process that
 * compensates on timeout is Processed only if a confirmation was sent; a signal answered `consumed`
 * is the result of a step; the process keeps each signal id once.
 */
export function checkSignals(doc: ProcessDocument, sent: Sent, answers: ReadonlyMap<string, readonly SignalResult[]>, violations: Violation[]): void {
  if (!isTripWorkflow(doc.workflow)) return;
  const { orderId } = doc;
  const mine = [...sent].filter(([, s]) => s.orderId === orderId);
  const signalSteps = SIGNAL_STEPS[doc.workflow];
  const holding = (data: JsonObject): string[] => doc.steps.filter((s) => s.result !== null && sameJson(s.result, data)).map((s) => s.name);
  for (const [signalId, signal] of mine) {
    const holders = holding(signal.data);
    if (holders.length > 1) violations.push({ invariant: 'a signal is applied once', orderId, detail: `signal ${signalId} (sent ${signal.sends} times) is the result of ${holders.join(' and ')}` });
    const foreign = holders.filter((h) => !signalSteps.includes(h) || signal.name !== 'confirm');
    if (foreign.length > 0) violations.push({ invariant: 'a signal completes only a step waiting for its name', orderId, detail: `signal ${signalId} '${signal.name}' is the result of ${foreign.join(', ')}` });
    const consumed = (answers.get(signalId) ?? []).some((a) => a.outcome === 'consumed');
    if (consumed && holders.length === 0 && doc.state === 'Processed') {
      violations.push({ invariant: 'a signal answered consumed is a step\'s result', orderId, detail: `signal ${signalId} was answered consumed, yet no step of the Processed order holds it` });
    }
  }
  for (const name of signalSteps) {
    const step = doc.steps.find((s) => s.name === name);
    if (step?.state !== 'Completed') continue;
    const fromSignal = mine.some(([, s]) => s.name === 'confirm' && step.result !== null && sameJson(step.result, s.data));
    const timedOut = doc.workflow === TRIP_WORKFLOWS.lenient && (step.result === null || step.result['timedOut'] === true);
    if (!fromSignal && !timedOut) violations.push({ invariant: 'a signal step holds a signal sent to it', orderId, detail: `${name} completed with ${JSON.stringify(step.result)}, which no confirm signal sent to ${orderId} carried` });
  }
  const confirms = mine.filter(([, s]) => s.name === 'confirm').length;
  if (doc.state === 'Processed' && doc.workflow !== TRIP_WORKFLOWS.lenient && confirms < signalSteps.length) {
    violations.push({ invariant: 'an unconfirmed trip is never Processed', orderId, detail: `${doc.workflow} is Processed with ${confirms} confirm signal(s) sent for ${signalSteps.length} signal step(s)` });
  }
  const kept = doc.signals ?? [];
  const ids = kept.map((k) => k.id);
  const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (twice.length > 0) violations.push({ invariant: 'a signal is applied once', orderId, detail: `the process keeps signal(s) ${[...new Set(twice)].join(', ')} more than once` });
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
