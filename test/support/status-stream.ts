import type { ProcessEventEntry } from '@sas/contracts';
import type { SystemFixture } from './system-fixture';

/** One revision of an order's history and what became of the status events it owed. */
export interface RevisionStatuses {
  revision: number;
  to: string;
  why: string;
  /** Status events of this revision the application received (by `eventId`). */
  received: string[];
  /** For the first event id of this revision when none was received: its job's state in the reply queue ('unknown': not in Redis at all). */
  missingJob?: { id: string; state: string };
}

/**
 * Why an order's status stream is not complete, revision by revision: for each transition in its
 * history, the status events the application got, and for a revision that got none, what Redis
 * holds of the job that would have carried it (`${processId}.${revision}.0`, the outbox's id).
 * A job in `unknown` state after a Redis Cluster failover was acknowledged to its sender (its
 * outbox was cleared) and is gone from the promoted replica; one in `active` was taken by a
 * consumer whose answer was lost, and waits for BullMQ's stalled-job check.
 */
export async function statusStreamOf(fx: SystemFixture, orderId: string): Promise<RevisionStatuses[]> {
  const [doc] = await fx.processes({ orderId });
  if (!doc) return [];
  const history = await fx.db
    .collection<ProcessEventEntry & { _id: string }>('process_events')
    .find({ processId: doc._id })
    .toArray();
  const got = fx.statuses.messages.filter((m) => m.orderId === orderId).map((m) => String(m.eventId));
  const queue = fx.queue(fx.replyTo);
  try {
    const rows: RevisionStatuses[] = [];
    for (const h of history.sort((a, b) => revisionOf(a._id) - revisionOf(b._id))) {
      const revision = revisionOf(h._id);
      const received = [...new Set(got.filter((id) => id.startsWith(`${doc._id}.${revision}.`)))];
      const row: RevisionStatuses = { revision, to: h.to, why: h.why, received };
      if (received.length === 0) {
        const id = `${doc._id}.${revision}.0`;
        row.missingJob = { id, state: String(await queue.getJobState(id)) };
      }
      rows.push(row);
    }
    return rows;
  } finally {
    await queue.close();
  }
}

function revisionOf(historyId: string): number {
  return Number(historyId.split('.').at(-2));
}
