import type { SignalResult } from '@sas/contracts';
import type { RequestReplyOutcome } from './request-reply';

/** What {@link signalWhenFound} waits with; the wall clock and a timer in `SasClient`. */
export interface SignalWaitDeps {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** The first pause after a `not-found`; it doubles up to {@link MAX_PAUSE_MS}. */
const FIRST_PAUSE_MS = 50;
const MAX_PAUSE_MS = 1000;

/**
 * Sends a signal (`send`, given the time left) and, while the scheduler answers `not-found`, sends
 * it again after a short pause, doubling up to a second, until `timeoutMs` has passed. A signal sent
 * right after its order's `submit` otherwise finds no order: the submission is queued, and the
 * order exists only once a submission service has stored it. Sending again is safe: the signal
 * keeps its id, so it is counted once.
 *
 * Resolves with the first answer that is not `not-found`, with no answer (`answered: false`, as
 * `send` gave it), or, at the deadline, with the last `not-found`, its message saying how long it
 * waited for the order.
 */
export async function signalWhenFound(
  orderId: string,
  timeoutMs: number,
  send: (timeoutMs: number) => Promise<RequestReplyOutcome<SignalResult>>,
  deps: SignalWaitDeps,
): Promise<RequestReplyOutcome<SignalResult>> {
  const deadline = deps.now() + timeoutMs;
  let pause = FIRST_PAUSE_MS;
  for (let sent = 1; ; sent++) {
    const outcome = await send(Math.max(1, deadline - deps.now()));
    if (!outcome.answered || outcome.reply.outcome !== 'not-found') return outcome;
    if (deadline - deps.now() <= pause) {
      const waited = `no order '${orderId}' was stored within the signal's timeout of ${timeoutMs} ms (sent ${sent} time(s)): it was never submitted, or its submission is not yet consumed`;
      return { answered: true, reply: { ...outcome.reply, message: `${outcome.reply.message}; ${waited}` } };
    }
    await deps.sleep(pause);
    pause = Math.min(pause * 2, MAX_PAUSE_MS);
  }
}
