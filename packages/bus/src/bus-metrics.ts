/**
 * Why a message went to the dead-letter queue, as a bounded label (the free-text reason stays in
 * the entry): `invalid` failed validation, `redelivered` was delivered more times than the retry
 * policy allows without finishing, `handler-failed` failed on its last delivery, `job-failed` was
 * failed by BullMQ itself, `refused` was dead-lettered by a handler (an unknown workflow).
 */
export type DeadLetterKind = 'invalid' | 'redelivered' | 'handler-failed' | 'job-failed' | 'refused';

/**
 * Where the bus reports what its consumers did, for `/metrics`. An interface so `@sas/bus` stays
 * free of any metrics library; the wiring implements it with prom-client. Calls must not throw.
 */
export interface BusMetrics {
  /** A message of `queue` was handled. */
  handled(queue: string): void;
  /** A handler of `queue` failed and its message was put back for a later delivery. */
  retried(queue: string): void;
  /** A message of `queue` was written to the dead-letter queue. */
  deadLettered(queue: string, kind: DeadLetterKind): void;
}
