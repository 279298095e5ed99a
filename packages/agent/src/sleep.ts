/**
 * Waits `ms` milliseconds, or less when `signal` aborts. It resolves in both cases and never
 * rejects: the caller looks at its own clock and signal afterwards to learn why it woke up.
 * Injected into the agent so a simulation can replace wall-clock waiting with virtual time.
 */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** The real {@link Sleep} on Node timers; only `main.ts` should pass it in. */
export const sleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  });
