/**
 * What {@link AgentWorker.handle} did with one request. Expected outcomes are values, not
 * exceptions: tests assert them and metrics count them. `calls` is how many calls reached the
 * remote (a call refused by an open breaker does not).
 */
export type HandleOutcome =
  | { kind: 'replied-ok'; calls: number }
  | { kind: 'replied-error'; errorKind: 'permanent' | 'transient'; message: string; calls: number }
  | { kind: 'parked'; retryAfterMs: number; calls: number }
  /** complete-by had passed when the request arrived: no call, no reply. */
  | { kind: 'expired-before-start' }
  /** complete-by passed (or no retry could start before it) while working: no reply. */
  | { kind: 'expired-silent'; reason: string; calls: number };

/** Every kind of {@link HandleOutcome}, for counters. */
export const HANDLE_OUTCOME_KINDS = [
  'replied-ok',
  'replied-error',
  'parked',
  'expired-before-start',
  'expired-silent',
] as const satisfies readonly HandleOutcome['kind'][];
