import type { OutboxEntry } from '@sas/contracts';

/**
 * Whether a process's outbox must be delivered now (decision 62): when it owes a message (a
 * status event or an alert: someone is waiting for it), or when the process has finished (its
 * history is dated and goes to `process_events` for good). History entries alone can wait in the
 * document: they are as durable there, `ProcessStore.history` reads them from there, and the next
 * transition that owes a message, or the last one, delivers them in the same insert. That spares a
 * middle step the history insert and the outbox clear, two of its three writes.
 */
export function outboxDue(outbox: readonly OutboxEntry[] | undefined, deleteTime: Date | null): boolean {
  if (!outbox || outbox.length === 0) return false;
  return deleteTime !== null || outbox.some((e) => e.kind === 'message');
}
