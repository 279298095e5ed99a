import type { OutboxEntry, ProcessDocument } from '@sas/contracts';
import { ensureError } from '@sas/runtime';
import type { HistoryRecord, OwedOutbox, ProcessStore } from '@sas/store';
import type { Logger } from 'pino';
import type { Outbox, ReplicaCheck } from './outbox';
import { outboxAfterDelivery } from './outbox-due';

type OwedMessage = Extract<OutboxEntry, { kind: 'message' }>;

const NOT_REPLICATED = 'sent, but no replica of the Redis node confirmed the messages in time, so a failover could still lose them';

/**
 * Delivers a process's outbox (status events, alerts, and once it finished its history) and then
 * empties it of what it delivered, conditionally on the revision it read. Delivery is at least
 * once: a crash before the outbox is emptied means it is delivered again, by the next writer of
 * the process or by the supervisor's sweep, and the deterministic ids make the repeat a no-op
 * (BullMQ drops a job whose id exists; the history skips an `_id` it has). Where Redis has replicas
 * (a cluster), "delivered" also means a replica confirmed the sends ({@link Outbox.replicaCheck}):
 * an acknowledged send can vanish with its master in a failover, and the outbox would have forgotten it.
 *
 * The history (when due) and the messages go out side by side, so a delivery costs about two
 * round trips (both, then the clear) instead of one per entry; messages to one queue still leave
 * in the order they were owed, so an application sees a process's status events in order.
 */
export class OutboxDelivery {
  constructor(
    private readonly store: ProcessStore,
    private readonly outbox: Outbox,
    private readonly logger: Logger,
  ) {}

  /**
   * True when everything due was delivered. Failures are logged, never thrown: the state is already
   * durable. The messages always go; the history only once the process finished (decision 62):
   * until then it stays in the outbox, and the clear keeps it. `redelivery`: the outbox was owed
   * before (the supervisor's sweep), so its history may have been recorded undated by an earlier
   * build (decision 129), and is dated where it is stored too.
   */
  async deliver(doc: OwedOutbox | ProcessDocument, options: { redelivery?: boolean } = {}): Promise<boolean> {
    const owed = doc.outbox ?? [];
    if (owed.length === 0) return true;
    try {
      const finished = doc.deleteTime !== null;
      const history = finished ? owed.flatMap((e) => (e.kind === 'history' ? [{ ...e.entry, _id: e.id }] : [])) : [];
      const messages = owed.filter((e): e is OwedMessage => e.kind === 'message');
      const replicas = this.replicaCheck(messages);
      // allSettled: the clear must not start while a send of this delivery may still be running.
      const outcomes = await Promise.allSettled([this.record(doc, history, options.redelivery ?? false), ...this.sendInOrder(messages)]);
      const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (failed) throw failed.reason;
      // A send the master acknowledged but no replica holds yet would vanish in a failover, after
      // the clear below had forgotten it: the outbox is emptied only once a replica confirmed it.
      if (replicas && !(await replicas.confirmed())) throw new Error(NOT_REPLICATED);
      await this.store.clearOutbox(doc._id, doc.revision, outboxAfterDelivery(owed, doc.deleteTime));
      return true;
    } catch (e) {
      this.logger.error(
        { err: ensureError(e), processId: doc._id, owed: owed.length },
        'outbox not delivered yet; it stays in the process and will be delivered again',
      );
      return false;
    }
  }

  /**
   * Sends the messages an unfinished process owes, in order, and leaves its outbox as it is: for a
   * caller whose next commit of the process writes the outbox without them, so that commit is also
   * the clear (the submission handing the process it inserted to a scheduler beside it). Until that
   * commit the messages stay owed, and a crash means they are sent again under the same ids.
   * True when every owed message was sent; failures are logged, never thrown.
   */
  async sendMessages(doc: ProcessDocument): Promise<boolean> {
    const messages = (doc.outbox ?? []).filter((e): e is OwedMessage => e.kind === 'message');
    const replicas = this.replicaCheck(messages);
    const outcomes = await Promise.allSettled(this.sendInOrder(messages));
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    // Confirmed by a replica as in `deliver`: the caller's next commit is the clear.
    const reason = failed ? ensureError(failed.reason) : replicas && !(await replicas.confirmed()) ? new Error(NOT_REPLICATED) : undefined;
    if (reason === undefined) return true;
    this.logger.error({ err: reason, processId: doc._id, owed: messages.length }, 'status events not sent yet; they stay in the process and will be delivered again');
    return false;
  }

  /** Taken before the sends, so that the check can tell whether the connection they used changed under them. */
  private replicaCheck(messages: readonly OwedMessage[]): ReplicaCheck | undefined {
    return messages.length > 0 ? this.outbox.replicaCheck?.([...new Set(messages.map((m) => m.queue))]) : undefined;
  }

  private async record(doc: OwedOutbox | ProcessDocument, history: HistoryRecord[], redelivery: boolean): Promise<void> {
    if (history.length === 0) return;
    // A finished process dates its whole history (kept undated while it was unfinished) with the
    // date its terminal transition's entry carries. The entries are dated before they are inserted,
    // so the insert is the whole record: none is ever stored undated (decision 129).
    const dated = doc.deleteTime ? history.find((h) => h.deleteTime !== null)?.deleteTime : undefined;
    await this.store.appendEvents(dated ? history.map((h) => (h.deleteTime === null ? { ...h, deleteTime: dated } : h)) : history);
    // Only builds before decision 129 stored entries undated (and dated them after): an outbox the
    // sweep delivers again may follow one of their crashes, so it dates what is stored as well.
    if (redelivery && dated) await this.store.expireHistory(doc._id, dated);
  }

  /** One chain per queue, each in owed order; the chains run side by side. */
  private sendInOrder(messages: readonly OwedMessage[]): Promise<void>[] {
    const byQueue = new Map<string, OwedMessage[]>();
    for (const m of messages) byQueue.set(m.queue, [...(byQueue.get(m.queue) ?? []), m]);
    return [...byQueue.values()].map(async (chain) => {
      for (const entry of chain) await this.outbox.send(entry.queue, entry.message, { jobId: entry.id });
    });
  }
}
