import { QueueNames, type OutboxEntry, type ProcessEventEntry } from '@sas/contracts';
import type { Action } from '@sas/workflow';

/**
 * What a committed transition owes the world, as outbox entries written in the same document
 * write: its history entry, its status events and its alerts. Ids depend only on the process and
 * the revision, so delivering an entry twice is harmless.
 */
export function outboxEntries(
  processId: string,
  revision: number,
  actions: readonly Action[],
  history: ProcessEventEntry | null,
): OutboxEntry[] {
  const entries: OutboxEntry[] = [];
  if (history) entries.push({ kind: 'history', id: `${processId}.${revision}.h`, entry: history });
  let n = 0;
  for (const action of actions) {
    if (action.type === 'status') {
      const id = `${processId}.${revision}.${n++}`;
      // The event carries its own id, so a receiver deduplicates redeliveries without BullMQ job ids.
      entries.push({ kind: 'message', id, queue: action.replyTo, message: { ...action.event, eventId: id } });
    } else if (action.type === 'alert') {
      entries.push({ kind: 'message', id: `${processId}.${revision}.${n++}`, queue: QueueNames.alerts, message: action.alert });
    }
  }
  return entries;
}
