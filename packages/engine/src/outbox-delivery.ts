import type { ProcessDocument } from '@sas/contracts';
import { ensureError } from '@sas/runtime';
import type { OwedOutbox, ProcessStore } from '@sas/store';
import type { Logger } from 'pino';
import type { Outbox } from './outbox';

/**
 * Delivers a process's outbox (history entries, status events, alerts) and then empties it,
 * conditionally on the revision it read. Delivery is at least once: a crash before the outbox is
 * emptied means it is delivered again, by the next writer of the process or by the supervisor's
 * sweep, and the deterministic ids make the repeat a no-op (BullMQ drops a job whose id exists;
 * the history skips an `_id` it has).
 */
export class OutboxDelivery {
  constructor(
    private readonly store: ProcessStore,
    private readonly outbox: Outbox,
    private readonly logger: Logger,
  ) {}

  /** True when everything owed was delivered. Failures are logged, never thrown: the state is already durable. */
  async deliver(doc: OwedOutbox | ProcessDocument): Promise<boolean> {
    const owed = doc.outbox ?? [];
    if (owed.length === 0) return true;
    try {
      const history = owed.flatMap((e) => (e.kind === 'history' ? [{ ...e.entry, _id: e.id }] : []));
      await this.store.appendEvents(history);
      // A finished process dates its whole history (kept undated while it was unfinished) with the
      // date its terminal transition's entry carries.
      const dated = history.find((h) => h.deleteTime !== null)?.deleteTime;
      if (doc.deleteTime && dated) await this.store.expireHistory(doc._id, dated);
      for (const entry of owed) {
        if (entry.kind === 'message') await this.outbox.send(entry.queue, entry.message, { jobId: entry.id });
      }
      await this.store.clearOutbox(doc._id, doc.revision);
      return true;
    } catch (e) {
      this.logger.error(
        { err: ensureError(e), processId: doc._id, owed: owed.length },
        'outbox not delivered yet; it stays in the process and will be delivered again',
      );
      return false;
    }
  }
}
