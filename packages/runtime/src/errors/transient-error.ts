/**
 * A failure that may succeed if tried again (timeouts, 5xx, connection resets).
 * `retryAfterMs` carries a hint from the remote side (HTTP `Retry-After`).
 */
export class TransientError extends Error {
  override readonly name: string = 'TransientError';
  constructor(
    message: string,
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
