/**
 * A message did not reach Redis within the client's `sendTimeoutMs`. It may still arrive when Redis
 * comes back; sending it again is safe (the same submission is answered as the first time).
 */
export class SendTimeoutError extends Error {
  override readonly name = 'SendTimeoutError';
  constructor(
    readonly queue: string,
    readonly timeoutMs: number,
    readonly redisUrl: string,
  ) {
    super(
      `Sending to queue '${queue}' did not reach Redis at ${redisUrl} within ${timeoutMs} ms; it may or may not have been queued. ` +
        'Check that Redis is reachable, then send it again (a repeated submission is answered as the first one).',
    );
  }
}
