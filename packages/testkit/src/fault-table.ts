import type { SentMessage } from './recording-outbox';

/**
 * The two ways one call can fail in a fault table (see {@link FaultInjector}): before it reaches
 * its target, or after it took effect with its answer lost. For `describe.each`.
 */
export const FAULT_TIMINGS = [
  ['before it reaches its target', false],
  ['after it took effect (the answer was lost)', true],
] as const;

/** A fault table's calls numbered from 1, for `it.each`: `[[1, 'get'], [2, 'commit'], …]`. */
export function numberedCalls(calls: readonly string[]): Array<[number, string]> {
  return calls.map((method, i) => [i + 1, method]);
}

/**
 * The key a receiver deduplicates a sent message on: its `eventId` when it has one, else its job
 * id; a message with neither is its own key (it cannot be deduplicated).
 */
export function dedupKey(sent: SentMessage, index: number): string {
  const eventId = (sent.message as { eventId?: unknown }).eventId;
  if (typeof eventId === 'string') return `event:${eventId}`;
  return sent.options?.jobId !== undefined ? `job:${sent.options.jobId}` : `unkeyed:${index}`;
}
