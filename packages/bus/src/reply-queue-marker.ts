import type { Redis } from 'ioredis';

/**
 * A private reply queue (see `requestReply`) is removed when its caller stops waiting. An answer
 * sent after that would create the queue again, and nobody would ever remove it. So the caller
 * leaves a marker when it closes the queue, and `Bus.sendReply` drops an answer to a closed
 * queue — and removes the queue itself if the caller closed it while the answer was on its way.
 *
 * The marker outlives any redelivery of the request it answers (operator commands are retried
 * for well under a day; failed ones are kept a week).
 */
export const CLOSED_REPLY_QUEUE_TTL_SECONDS = 7 * 24 * 3600;

function markerKey(prefix: string, queue: string): string {
  return `${prefix}:reply-queue-closed:${queue}`;
}

/** Marks a private reply queue as closed: answers to it are dropped from now on. */
export async function markReplyQueueClosed(redis: Redis, prefix: string, queue: string): Promise<void> {
  await redis.set(markerKey(prefix, queue), '1', 'EX', CLOSED_REPLY_QUEUE_TTL_SECONDS);
}

/** True when `queue` was a private reply queue whose caller has stopped waiting. */
export async function isReplyQueueClosed(redis: Redis, prefix: string, queue: string): Promise<boolean> {
  return (await redis.exists(markerKey(prefix, queue))) === 1;
}
