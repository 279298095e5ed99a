/**
 * How long a consumer's hold on a message lasts and how soon a dead consumer's messages are
 * taken back. BullMQ's defaults (30 s lock, 30 s stalled check) let a killed service hold its
 * messages for 60–90 s; our handlers are short, so each queue gets a tighter default.
 *
 * The lock is renewed every `lockDurationMs / 2` while the handler runs, so a long handler is
 * safe as long as the event loop is not blocked for longer than that.
 */
export interface ConsumerLock {
  /** How long a message stays locked to this consumer without a renewal. */
  lockDurationMs: number;
  /** How often this consumer looks for messages whose lock expired (their consumer died). */
  stalledIntervalMs: number;
}

/** Submissions, scheduler wake-ups and replies, operator commands: handlers of milliseconds. */
const SHORT_HANDLER: ConsumerLock = { lockDurationMs: 10_000, stalledIntervalMs: 5_000 };

/** Agent requests: the handler retries the remote call until the step's complete-by. */
const REMOTE_CALL: ConsumerLock = { lockDurationMs: 15_000, stalledIntervalMs: 10_000 };

/** The default lock of a queue: `agent.*` queues call remote services, every other queue is short. */
export function defaultLockFor(queue: string): ConsumerLock {
  return queue.startsWith('agent.') ? REMOTE_CALL : SHORT_HANDLER;
}
