import { RedisUnavailableError } from '@sas/runtime';

/**
 * Bounds a send. The producer connection waits through a Redis outage (BullMQ needs that of its
 * connections), so without a bound a send after a commit would block the engine, a claim round
 * or a sweep for as long as Redis is away, and the dispatch would leave with its complete-by
 * already past. Past the deadline the caller gets a `TransientError` and takes its own path
 * (the outbox keeps what is owed; an unsent dispatch is released). The send itself may still
 * complete when Redis returns: every send is at-least-once anyway and carries its dedup id.
 */
export async function withSendDeadline<T>(send: Promise<T>, deadlineMs: number, queue: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new RedisUnavailableError(`send to queue '${queue}' took longer than ${deadlineMs} ms; is Redis reachable?`)),
      deadlineMs,
    );
  });
  try {
    return await Promise.race([send, expired]);
  } finally {
    clearTimeout(timer);
    // The losing send may still fail later; that is expected and must not surface as unhandled.
    send.catch(() => undefined);
  }
}
