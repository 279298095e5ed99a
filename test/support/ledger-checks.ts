import type { WorkflowDefinition } from '@sas/workflow';
import type { LedgerEffect } from './system-fixture';

/**
 * Pure checks over remote-sim's effect ledger, for the end-to-end tests.
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
  for (const step of workflows.flatMap((w) => w.steps)) {
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

function isUndoOf(undo: LedgerEffect, forward: LedgerEffect, undoKind: string): boolean {
  return (
    kindOf(undo) === undoKind &&
    undo.orderId === forward.orderId &&
    (undo.compensates === undefined || undo.compensates === forward.idempotencyKey)
  );
}
