import type { OutboxEntry } from '@sas/contracts';

/**
 * Whether a process's outbox must be delivered now (decision 62): when it owes a message (a
 * status event or an alert: someone is waiting for it), or when the process has finished (its
 * history is dated and goes to `process_events` for good). History entries alone wait in the
 * document: they are as durable there, `ProcessStore.history` reads them from there, and the
 * process's last transition records all of them in one insert. That spares a middle step the
 * history insert and, when it owes no message either, the outbox clear.
 */
export function outboxDue(outbox: readonly OutboxEntry[] | undefined, deleteTime: Date | null): boolean {
  if (!outbox || outbox.length === 0) return false;
  return deleteTime !== null || outbox.some((e) => e.kind === 'message');
}

/**
 * What a delivery leaves in the outbox: nothing once the process finished (everything was
 * recorded), otherwise the history entries, which wait for the process to finish.
 */
export function outboxAfterDelivery(outbox: readonly OutboxEntry[] | undefined, deleteTime: Date | null): OutboxEntry[] {
  return deleteTime !== null ? [] : (outbox ?? []).filter((e) => e.kind === 'history');
}
