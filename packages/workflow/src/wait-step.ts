import type { ProcessDraft } from './process-draft';
import type { TransitionResult } from './transition-result';

/**
 * Begins the wait step whose record is at `index` (its condition already true): the process sits
 * Pending with `notBefore` (and the record's `waitUntil`) at the instant. Finishes the draft.
 */
export function startWait(_draft: ProcessDraft, _index: number, _why: string): TransitionResult {
  throw new Error('wait/signal steps land with the signals helper');
}

/** A claim of a process whose current wait step's instant has come: the step completes and the next entry starts. */
export function wakeWait(_draft: ProcessDraft, _why: string): TransitionResult {
  throw new Error('wait/signal steps land with the signals helper');
}
