import type { Sleep } from './sleep';

/** A signal that aborts when a step's complete-by time comes, unless cancelled first. */
export interface Deadline {
  signal: AbortSignal;
  /** Stops waiting; call it when the step is done so no timer outlives it. */
  cancel(): void;
}

/**
 * Arms a {@link Deadline} `ms` from now. It waits through the injected {@link Sleep} rather than a
 * timer of its own, so in a simulation the complete-by time passes on the virtual clock.
 */
/**
 * The reason every cancelled wait is aborted with: one shared value, because `abort()` without a
 * reason builds a DOMException (with its stack) on every step for nobody to read.
 */
const STEP_FINISHED = new Error('the step finished before complete-by');

export function startDeadline(sleep: Sleep, ms: number): Deadline {
  const expired = new AbortController();
  const cancelled = new AbortController();
  void sleep(ms, cancelled.signal).then(
    () => {
      if (!cancelled.signal.aborted) expired.abort(new Error(`complete-by reached after ${ms} ms`));
    },
    // Sleep never rejects by contract; if one does anyway, the deadline just never fires early.
    () => undefined,
  );
  return { signal: expired.signal, cancel: () => cancelled.abort(STEP_FINISHED) };
}
