import type { OutboxEntry, ProcessEventEntry } from '@sas/contracts';
import type { HistoryRecord } from './process-store';

/**
 * A process's whole history: the entries delivered to `process_events` and those its outbox still
 * owes (decision 62: history alone waits in the document for the next delivery). An entry both
 * delivered and still owed (delivered, not yet cleared) appears once. By `at`, in the order given
 * where times are equal (delivered first, then owed in outbox order, which is commit order).
 */
export function mergeHistory(delivered: readonly HistoryRecord[], outbox: readonly OutboxEntry[] | undefined): ProcessEventEntry[] {
  const seen = new Set<unknown>(delivered.map((e) => e._id));
  const owed: HistoryRecord[] = [];
  for (const e of outbox ?? []) if (e.kind === 'history' && !seen.has(e.id)) owed.push({ ...e.entry, _id: e.id });
  return [...delivered, ...owed]
    .map((e, order) => ({ e, order }))
    .sort((a, b) => a.e.at.getTime() - b.e.at.getTime() || a.order - b.order)
    .map(({ e: { _id: _ignored, ...entry } }) => entry);
}
