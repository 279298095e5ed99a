/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** Give up after this long. */
  timeoutMs: number;
  /** Pause between probes. @default 50 */
  intervalMs?: number;
  /** What is awaited, as it should read in the failure: "the order to reach Processed". */
  description: string;
  /**
   * Extra text for the failure message, built only on failure: {@link TestStack.waitFor} uses it
   * to print the log files of the services under test.
   */
  diagnostics?: () => string;
}

const MAX_VALUE_CHARS = 1000;

/**
 * Polls `probe` until it returns a truthy value and resolves with that value. Tests wait on a
 * condition with a deadline instead of sleeping, so they are as fast as the system and fail with
 * the last value seen rather than a bare timeout. A probe that throws counts as "not yet"; its
 * last error goes into the failure message.
 *
 * @example
 * ```ts
 * const doc = await waitFor(() => processes.findOne({ orderId, state: 'Processed' }), {
 *   timeoutMs: 10_000,
 *   description: `order ${orderId} to be Processed`,
 * });
 * ```
 */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  options: WaitForOptions,
): Promise<NonNullable<T>> {
  const intervalMs = options.intervalMs ?? 50;
  const deadline = Date.now() + options.timeoutMs;
  let lastValue: T | undefined;
  let lastError: unknown;
  let pending = false;
  for (;;) {
    const outcome = await probeBefore(probe, deadline);
    if (outcome.kind === 'value') {
      if (outcome.value) return outcome.value as NonNullable<T>;
      lastValue = outcome.value;
    } else if (outcome.kind === 'error') {
      lastError = outcome.error;
    } else {
      pending = true;
    }
    const remaining = deadline - Date.now();
    if (pending || remaining <= 0) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, remaining)));
  }
  throw new Error(failureMessage(options, lastValue, lastError, pending));
}

type ProbeOutcome<T> = { kind: 'value'; value: T } | { kind: 'error'; error: unknown } | { kind: 'pending' };

/** Runs the probe once, giving up on it (not on the process) if it is still pending at the deadline. */
async function probeBefore<T>(probe: () => T | Promise<T>, deadline: number): Promise<ProbeOutcome<T>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ProbeOutcome<T>>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'pending' }), Math.max(0, deadline - Date.now()));
  });
  const attempt = (async (): Promise<ProbeOutcome<T>> => {
    try {
      return { kind: 'value', value: await probe() };
    } catch (error) {
      return { kind: 'error', error };
    }
  })();
  try {
    return await Promise.race([attempt, late]);
  } finally {
    clearTimeout(timer);
  }
}

function failureMessage(
  options: WaitForOptions,
  lastValue: unknown,
  lastError: unknown,
  pending: boolean,
): string {
  let message = `Timed out after ${options.timeoutMs} ms waiting for ${options.description}; last value: ${describe(lastValue)}`;
  if (lastError !== undefined) {
    message += `; last error: ${lastError instanceof Error ? `${lastError.name}: ${lastError.message}` : describe(lastError)}`;
  }
  if (pending) message += '; the last probe was still pending at the deadline';
  if (options.diagnostics) message += `\n${options.diagnostics()}`;
  return message;
}

function describe(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}… (${text.length} chars)` : text;
}
