/**
 * A call was refused because the remote service's circuit is open: the remote was not touched.
 * The agent answers such a step `parked` (not failed) so the scheduler waits `retryAfterMs`.
 */
export class CircuitOpenError extends Error {
  override readonly name = 'CircuitOpenError';
  constructor(
    readonly service: string,
    /** Time until the breaker lets a trial call through. */
    readonly retryAfterMs: number,
  ) {
    super(`circuit open for ${service}; calls resume in about ${retryAfterMs} ms`);
  }
}
