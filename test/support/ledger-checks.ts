import type { ProcessDocument } from '@sas/contracts';
import type { Arrival } from '@sas/remote-sim';
import { taskSteps, type WorkflowDefinition } from '@sas/workflow';
import type { LedgerEffect } from './system-fixture';

/**
 * One call as a remote saw it arrive (remote-sim's `GET /arrivals`, or the shop example's provider,
 * which records the same shape for its own service names), whatever became of it.
 */
export type LedgerArrival = Omit<Arrival, 'service' | 'outcome'> & { service: string; outcome: string };

/**
 * Pure checks over remote-sim's effect ledger and arrival log, for the end-to-end tests.
 *
 * "One effect per idempotency key" cannot fail: the ledger refuses a repeated key and the
 * simulator replays instead. A double effect shows up as a second effect of the same kind for
 * the same order under another key (two `payment.charge` for one order), so these checks group
 * by (order, `service.operation`). Each returns one sentence per problem; `[]` means none, so a
 * test asserts `toEqual([])` and a failure names the order and what happened to it.
 */

/** `service.operation` of a forward operation → `service.operation` of its undo. */
export type UndoOf = ReadonlyMap<string, string>;

/** `service.operation` of an effect, e.g. `payment.charge`. */
export function kindOf(effect: Pick<LedgerEffect, 'service' | 'operation'>): string {
  return `${effect.service}.${effect.operation}`;
}

/**
 * The forward → undo pairs the workflows define (the step's agent is the remote service), e.g.
 * `payment.charge` → `payment.refund`. Read from the definitions, so a new step is covered.
 */
export function undoPairs(workflows: readonly WorkflowDefinition[]): UndoOf {
  const pairs = new Map<string, string>();
  for (const step of workflows.flatMap((w) => taskSteps(w))) {
    if (step.compensation !== null) pairs.set(`${step.agent}.${step.operation}`, `${step.agent}.${step.compensation}`);
  }
  return pairs;
}

/** Every (order, operation) that took effect more than once, e.g. `order o-1: payment.charge took effect 2 times (keys a, b)`. */
export function repeatedEffects(ledger: readonly LedgerEffect[]): string[] {
  const byOrderAndKind = new Map<string, LedgerEffect[]>();
  for (const effect of ledger) {
    const key = `order ${effect.orderId}: ${kindOf(effect)}`;
    byOrderAndKind.set(key, [...(byOrderAndKind.get(key) ?? []), effect]);
  }
  return [...byOrderAndKind]
    .filter(([, effects]) => effects.length > 1)
    .map(([key, effects]) => `${key} took effect ${effects.length} times (keys ${effects.map((e) => e.idempotencyKey).join(', ')})`);
}

/**
 * Forward effects of `orderIds` that no undo compensates. An undo compensates a forward effect
 * when it is of the paired kind for the same order and names the forward key, or names none.
 */
export function unundoneEffects(ledger: readonly LedgerEffect[], orderIds: readonly string[], undoOf: UndoOf): string[] {
  const orders = new Set(orderIds);
  const problems: string[] = [];
  for (const forward of ledger) {
    const undoKind = undoOf.get(kindOf(forward));
    if (undoKind === undefined || !orders.has(forward.orderId)) continue;
    if (!ledger.some((undo) => isUndoOf(undo, forward, undoKind))) {
      problems.push(`order ${forward.orderId}: ${kindOf(forward)} (${forward.effectId}, key ${forward.idempotencyKey}) was never undone by ${undoKind}`);
    }
  }
  return problems;
}

/**
 * Undos applied before the forward effect they compensate (by ledger order, which is the order
 * applied): the forward effect then stays in place although the order counts as undone.
 */
export function undosBeforeForward(ledger: readonly LedgerEffect[], undoOf: UndoOf): string[] {
  const problems: string[] = [];
  ledger.forEach((forward, forwardIndex) => {
    const undoKind = undoOf.get(kindOf(forward));
    if (undoKind === undefined) return;
    for (const undo of ledger.slice(0, forwardIndex)) {
      if (!isUndoOf(undo, forward, undoKind)) continue;
      problems.push(
        `order ${forward.orderId}: ${undoKind} (${undo.effectId} at ${undo.at}) took effect before the ${kindOf(forward)} it undoes ` +
          `(${forward.effectId} at ${forward.at}), so that ${kindOf(forward)} stays in place`,
      );
    }
  });
  return problems;
}

/**
 * Forward calls that arrived after the undo naming them (by arrival order): applied, such a call
 * would stay in place with the order counted as undone. Needs remote-sim's `plain` mode to mean
 * anything beyond arrival order; the `protective` mode refuses such a call, but it still arrives.
 */
export function forwardCallsAfterUndo(arrivals: readonly LedgerArrival[]): string[] {
  const problems: string[] = [];
  arrivals.forEach((undo, undoIndex) => {
    if (undo.mode !== 'undo' || undo.compensates === undefined) return;
    for (const forward of arrivals.slice(undoIndex + 1)) {
      if (!isForwardNamedBy(forward, undo)) continue;
      problems.push(
        `order ${undo.orderId}: ${kindOf(forward)} '${forward.idempotencyKey}' (${describe(forward)}) arrived after the ${kindOf(undo)} ` +
          `that undoes it (${describe(undo)})${forward.applied ? ' and took effect' : ''}`,
      );
    }
  });
  return problems;
}

/**
 * Undos that arrived while a forward call they name had arrived but was not answered yet (its
 * answer held or still on its way, its client not gone): the undo did not wait for the forward
 * call, so with a slower remote it would have overtaken it.
 */
export function undosBeforeForwardAnswered(arrivals: readonly LedgerArrival[]): string[] {
  const problems: string[] = [];
  arrivals.forEach((undo, undoIndex) => {
    if (undo.mode !== 'undo' || undo.compensates === undefined) return;
    for (const forward of arrivals.slice(0, undoIndex)) {
      if (!isForwardNamedBy(forward, undo)) continue;
      const ended = forward.answeredAt ?? forward.abandonedAt;
      if (ended !== undefined && ended <= undo.at) continue;
      const when = ended === undefined ? 'was never answered' : `was answered at ${ended}`;
      problems.push(
        `order ${undo.orderId}: ${kindOf(undo)} (${describe(undo)}) arrived while the ${kindOf(forward)} it undoes ` +
          `(${describe(forward)}) was still unanswered; that call ${when}`,
      );
    }
  });
  return problems;
}

/**
 * Dispatches that reached the remote more than once: two first tries (`try` 1) of the same call
 * key and attempt. An agent's retries have later tries, and every dispatch has its own attempt, so
 * two first tries mean the same step and attempt was sent twice (two schedulers holding one
 * process). Read from arrivals, before any idempotency replay hides it. An arrival without an
 * attempt or try is reported too: the check cannot see its dispatch.
 */
export function repeatedDispatches(arrivals: readonly LedgerArrival[]): string[] {
  const problems: string[] = [];
  const firstTries = new Map<string, LedgerArrival[]>();
  for (const arrival of arrivals) {
    if (arrival.attempt === undefined || arrival.try === undefined) {
      problems.push(`order ${arrival.orderId}: ${kindOf(arrival)} ${arrival.arrivalId} names no attempt and try, so its dispatch cannot be checked`);
      continue;
    }
    if (arrival.try !== 1) continue;
    const key = `${arrival.service}\u0000${arrival.idempotencyKey}\u0000${arrival.attempt}`;
    firstTries.set(key, [...(firstTries.get(key) ?? []), arrival]);
  }
  for (const same of firstTries.values()) {
    const [first] = same;
    if (first === undefined || same.length < 2) continue;
    problems.push(
      `order ${first.orderId}: ${kindOf(first)} '${first.idempotencyKey}' attempt ${first.attempt} was dispatched ${same.length} times ` +
        `(${same.map(describe).join(', ')})`,
    );
  }
  return problems;
}

/**
 * Completed steps whose stored result is not the answer of the effect their forward call applied
 * (its `effectId`, which remote-sim's mapping copies into every result): the process then holds
 * a result the remote never gave for this step, e.g. a reply of another attempt applied.
 */
export function resultsNotFromTheirEffect(docs: readonly ProcessDocument[], ledger: readonly LedgerEffect[]): string[] {
  const problems: string[] = [];
  for (const doc of docs) {
    for (const step of doc.steps) {
      if (step.state !== 'Completed') continue;
      const effect = ledger.find((e) => e.orderId === doc.orderId && e.idempotencyKey === step.idempotencyKey);
      const stored = step.result?.['effectId'];
      if (effect !== undefined && stored === effect.effectId) continue;
      const applied = effect === undefined ? 'no effect under its key' : `effect ${effect.effectId}`;
      problems.push(`order ${doc.orderId}: step ${step.name} holds the result of ${JSON.stringify(stored ?? null)}, but the remote applied ${applied}`);
    }
  }
  return problems;
}

function isForwardNamedBy(forward: LedgerArrival, undo: LedgerArrival): boolean {
  return forward.mode === 'forward' && forward.service === undo.service && forward.idempotencyKey === undo.compensates;
}

function describe(arrival: LedgerArrival): string {
  const attempt = arrival.attempt === undefined ? '' : ` attempt ${arrival.attempt}`;
  return `${arrival.arrivalId}${attempt} at ${arrival.at}`;
}

function isUndoOf(undo: LedgerEffect, forward: LedgerEffect, undoKind: string): boolean {
  return (
    kindOf(undo) === undoKind &&
    undo.orderId === forward.orderId &&
    (undo.compensates === undefined || undo.compensates === forward.idempotencyKey)
  );
}
