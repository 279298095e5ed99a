/**
 * A private reply queue (see `requestReply` in `@sas/client`) is removed when its caller stops
 * waiting. An answer sent after that would create the queue again, and nobody would ever remove
 * it. So the caller leaves a marker under this key when it closes the queue, and `Bus.sendReply`
 * drops an answer to a closed queue — and removes the queue itself if the caller closed it while
 * the answer was on its way. The key's name is the contract between the two; each side runs its
 * own Redis command on it.
 */
export function replyQueueClosedKey(prefix: string, queue: string): string {
  return `${prefix}:reply-queue-closed:${queue}`;
}

/**
 * How long a closed-queue marker lives: longer than any redelivery of the request it answers
 * (operator commands are retried for well under a day; failed ones are kept a week).
 */
export const CLOSED_REPLY_QUEUE_TTL_SECONDS = 7 * 24 * 3600;
