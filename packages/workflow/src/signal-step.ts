import type { ProcessDraft } from './process-draft';
import type { TransitionResult } from './transition-result';

/**
 * Begins the signal step whose record is at `index` (its condition already true): completes it at
 * once with the oldest unconsumed kept signal of its name, else the process sits Pending until the
 * step's timeout (`waitUntil`). Finishes the draft.
 */
export function startSignalWait(_draft: ProcessDraft, _index: number, _why: string): TransitionResult {
  throw new Error('wait/signal steps land with the signals helper');
}

/** A claim of a process whose current signal step's timeout has passed: applies its `onTimeout`. */
export function signalTimedOut(_draft: ProcessDraft, _why: string): TransitionResult {
  throw new Error('wait/signal steps land with the signals helper');
}
